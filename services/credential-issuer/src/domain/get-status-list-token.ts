import { createKeyObjectSigner, type JwtSigner, signStatusListToken } from "@attesto/protocol";
import { notFound, unavailable } from "@attesto/runtime/errors";
import { X509_STATUS_LIST_SIGNER } from "./credential-signer.js";
import { issuerIdentifierOf, statusListUriOf } from "./issuer-identifier.js";
import { isUuid } from "./offer.js";
import type { IssuerDependencies, SignedStatusList, StatusListSnapshot } from "./ports.js";

/** The key that signs the list's credentials: custody (X.509 path) or the DID-path key (issuer-keys.ts). */
async function signerOf(
  deps: Pick<IssuerDependencies, "issuerKeys" | "offers" | "x509Signers">,
  list: StatusListSnapshot,
): Promise<JwtSigner> {
  if (list.signer.key === X509_STATUS_LIST_SIGNER) return deps.x509Signers.signerFor(list.tenant);
  const offer = list.signer.signingOfferId ? await deps.offers.findById(list.signer.signingOfferId) : undefined;
  if (offer?.signing.mode !== "did") throw unavailable("Status list signing key is unavailable");
  const { key } = await deps.issuerKeys.keyOf({ id: offer.id, tenant: offer.tenant, signing: offer.signing });
  return createKeyObjectSigner(key, { kid: offer.signing.issuerKid });
}

/**
 * GET /status-lists/:tenant/:listId: the list's Status List Token (draft-ietf-oauth-status-list),
 * built from one read of the list (never a list half-way through a change) and signed on the same
 * path as the list's credentials. 404 for an unknown list or a list of another tenant.
 */
export async function getStatusListToken(
  deps: Pick<IssuerDependencies, "statusLists" | "signedStatusLists" | "offers" | "issuerKeys" | "x509Signers"> &
    Pick<IssuerDependencies, "issuerUrl" | "statusListTtlSeconds" | "statusListTokenLifetimeSeconds" | "now">,
  tenant: string,
  listId: string,
): Promise<SignedStatusList> {
  if (!isUuid(listId)) throw notFound("Status list not found");
  const id = listId.toLowerCase();
  const version = await deps.statusLists.findVersion(tenant, id);
  if (version === undefined) throw notFound("Status list not found");
  const now = Math.floor(deps.now().getTime() / 1000);
  const cached = deps.signedStatusLists.get(id);
  if (cached && cached.version === version && now < cached.issuedAt + deps.statusListTtlSeconds) return cached;
  const list = await deps.statusLists.find(tenant, id);
  if (!list) throw notFound("Status list not found");
  const uri = statusListUriOf(deps.issuerUrl, tenant, id);
  const token = await signStatusListToken({
    signer: await signerOf(deps, list),
    uri,
    issuer: issuerIdentifierOf(deps.issuerUrl, tenant),
    bits: list.bits,
    bytes: list.statuses,
    issuedAt: now,
    expiresAt: now + deps.statusListTokenLifetimeSeconds,
    ttl: deps.statusListTtlSeconds,
  });
  const signed = { token, issuedAt: now, version: list.version };
  deps.signedStatusLists.set(id, signed);
  return signed;
}
