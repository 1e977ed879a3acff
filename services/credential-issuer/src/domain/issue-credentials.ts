import { randomUUID } from "node:crypto";
import {
  type AccessTokenClaims,
  CredentialProofError,
  type DidDocumentResolver,
  issueSdJwtVc,
  jwkThumbprint,
  notarizedDigestOf,
  type PublicJwk,
  pooledRandomBytes,
  publicJwkFromDidKey,
  STATUS_LIST_BITS,
  samePublicKey,
  type VerifiedCredentialProof,
  verificationMethodsOf,
  verifyCredentialProof,
} from "@attesto/protocol";
import {
  CredentialRequestDenied,
  InvalidProof,
  InvalidToken,
  UnknownCredentialConfiguration,
} from "@attesto/runtime/errors";
import { MAX_BATCH_SIZE } from "./create-issuer-metadata.js";
import type { CredentialRecord } from "./credential-record.js";
import { type CredentialReference, referenceOf } from "./credential-reference.js";
import type { CredentialRequest } from "./credential-request.js";
import { credentialSignerOf } from "./credential-signer.js";
import { type IssuedArtifact, issueMdocCredential } from "./issue-mdoc-credential.js";
import { issuerIdentifierOf, statusListUriOf } from "./issuer-identifier.js";
import { INACTIVE_ISSUER, isIssuerActive, requestTenantScope } from "./issuer-lifecycle.js";
import { isUuid, type Offer } from "./offer.js";
import type { CredentialSigner, CredentialTypeInfo, IssuanceAllowanceKey, IssuerDependencies } from "./ports.js";
import type { StatusEntry } from "./status-lists.js";

/** What issuing credentials works with. */
export type IssueCredentialsDependencies = Pick<IssuerDependencies, "offers" | "offerMemory" | "tenants"> &
  Pick<IssuerDependencies, "credentialTypes"> &
  Pick<IssuerDependencies, "issuerUrl" | "cNonces" | "ledger" | "issuerKeys" | "x509Signers"> &
  Pick<IssuerDependencies, "statusEntries" | "statusListSizeOf" | "credentialTtlSeconds" | "now"> &
  Pick<IssuerDependencies, "issuanceReservations" | "issuanceAllowances" | "credentials" | "notary">;

/** Replay-store namespace of used c_nonces. */
export const C_NONCE_NAMESPACE = "c_nonce";

export interface IssuedCredential {
  credential: string;
  /** `chain` and `object_id` (the contract), then the reference fields, `state: "pending"` at issuance. */
  reference?: CredentialReference;
  /** This issuer's id of the credential (its record: GET/PATCH /v1/credentials/:id) and of its offer. */
  credential_id: string;
  offer_id: string;
}

export interface CredentialIssuance {
  credentials: IssuedCredential[];
  /** OID4VCI 1.0 §8.3: identifies this response's credentials at the notification endpoint. */
  notificationId: string;
  /** The signing path the credentials took. */
  signing: Offer["signing"]["mode"];
}

/** The configuration asked for must be one the access token covers. */
function checkConfiguration(token: AccessTokenClaims, request: CredentialRequest): void {
  if (!token.credentialConfigurationIds.includes(request.credentialConfigurationId)) {
    throw new UnknownCredentialConfiguration("the credential configuration is not covered by the access token");
  }
}

/**
 * The offer the token was issued for; a token for a vanished or unredeemed offer is not valid. As
 * this process redeemed it when it did (no read: offer-memory.ts says why that is the offer as
 * stored), else read (remembered as offered, another replica may have redeemed it).
 */
async function loadOffer(
  deps: Pick<IssuerDependencies, "offers" | "offerMemory" | "tenants">,
  token: AccessTokenClaims,
): Promise<{ offer: Offer; issuerActive: Promise<void> }> {
  // Its barrier runs beside the offer read; the tenant check after it awaits that barrier.
  const scope = requestTenantScope(deps);
  const remembered = deps.offerMemory.find(token.offerId);
  const offer =
    remembered?.status === "redeemed"
      ? remembered
      : isUuid(token.offerId)
        ? await deps.offers.findById(token.offerId)
        : undefined;
  if (!offer || offer.tenant !== token.tenant || offer.status !== "redeemed") {
    throw new InvalidToken("access token refers to no redeemed offer", { scheme: "Bearer" });
  }
  // A token minted before its tenant was deactivated yields nothing (OID4VCI 1.0 §8.3.1.2). Awaited
  // by the caller before anything is spent: its barrier's round trip runs beside the proofs' checks.
  const issuerActive = isIssuerActive(deps, offer.tenant, offer.createdAt, scope).then((active) => {
    if (!active) throw new CredentialRequestDenied(INACTIVE_ISSUER);
  });
  return { offer, issuerActive };
}

/** did:ledger documents through the ledger; a deactivated DID has no usable keys. */
const ledgerDidResolver =
  (deps: Pick<IssuerDependencies, "ledger">): DidDocumentResolver =>
  async (did) => {
    const resolved = await deps.ledger.resolveDid(did);
    return resolved && !resolved.deactivated ? resolved.document : undefined;
  };

/** Every proof verified (typ, key, signature, aud, iat, nonce), before any nonce is consumed. */
async function verifyProofs(
  deps: Pick<IssuerDependencies, "cNonces" | "issuerUrl" | "ledger" | "now">,
  offer: Offer,
  jwts: string[],
): Promise<VerifiedCredentialProof[]> {
  const options = {
    audience: issuerIdentifierOf(deps.issuerUrl, offer.tenant),
    cNonces: deps.cNonces,
    resolveDidDocument: ledgerDidResolver(deps),
    now: () => deps.now().getTime(),
  };
  const verified: VerifiedCredentialProof[] = [];
  for (const [index, jwt] of jwts.entries()) {
    try {
      verified.push(await verifyCredentialProof(jwt, options));
    } catch (error) {
      if (!(error instanceof CredentialProofError)) throw error;
      throw new InvalidProof(jwts.length > 1 ? `proofs.jwt[${index}]: ${error.message}` : error.message, {
        cause: error,
      });
    }
  }
  return verified;
}

/** The keys of the offer's holder_did: the only keys a bound offer may issue to. */
async function holderKeysOf(deps: Pick<IssuerDependencies, "ledger">, holderDid: string): Promise<PublicJwk[]> {
  if (holderDid.startsWith("did:key:")) {
    try {
      return [publicJwkFromDidKey(holderDid)];
    } catch {
      return [];
    }
  }
  const document = await ledgerDidResolver(deps)(holderDid);
  return verificationMethodsOf(document, holderDid).map((method) => method.publicJwk);
}

/** An offer bound to a holder DID issues only to proofs made with that DID's key. */
async function checkHolderBinding(
  deps: Pick<IssuerDependencies, "ledger">,
  offer: Offer,
  proofs: VerifiedCredentialProof[],
) {
  if (offer.holderDid === undefined) return;
  const keys = await holderKeysOf(deps, offer.holderDid);
  for (const proof of proofs) {
    const bound = proof.did === undefined || proof.did === offer.holderDid;
    if (!bound || !keys.some((key) => samePublicKey(key, proof.publicJwk))) {
      throw new InvalidProof("proof key does not belong to the holder_did the offer is bound to");
    }
  }
}

/**
 * OID4VCI 1.0 lets a wallet call the credential endpoint again with the same access token (a fresh
 * c_nonce each time). Without a bound, one offer would yield credentials without end, bound to any
 * key. The bound: at most `batch_size` (issuer metadata) credentials per access token and credential
 * configuration over the token's lifetime, counted in the database. An offer is redeemed once, so
 * the count is kept per offer, which also covers every token ever issued for it.
 *
 * Taken in one statement with the single use of the proofs' c_nonces (a batch's proofs share one)
 * before it and, when given, the credentials' records after it; each only if the one before held.
 */
async function reserveIssuance(
  deps: Pick<IssuerDependencies, "issuanceReservations" | "now">,
  proofs: VerifiedCredentialProof[],
  allowance: IssuanceAllowanceKey,
  records?: CredentialRecord[],
): Promise<void> {
  const nonces = [...new Map(proofs.map((proof) => [proof.nonce, proof.nonceExpiresAt]))].map(([value, expiresAt]) => ({
    value,
    expiresAt,
  }));
  const reservation = await deps.issuanceReservations.reserve({
    nonces,
    allowance: { key: allowance, count: proofs.length, limit: MAX_BATCH_SIZE },
    ...(records ? { records } : {}),
    now: deps.now(),
  });
  if (reservation.outcome === "nonce_used") {
    throw new InvalidProof("proof nonce already used; get a fresh c_nonce from the nonce endpoint");
  }
  if (reservation.outcome === "allowance_exceeded") {
    throw new CredentialRequestDenied(
      `this access token may yield at most ${MAX_BATCH_SIZE} credentials of configuration '${allowance.credentialConfigurationId}' (batch_size)`,
    );
  }
}

/** mdoc device keys are P-256 (HAIP): checked before any nonce is used, so the wallet may retry. */
function checkDeviceKeys(proofs: VerifiedCredentialProof[]): void {
  for (const [index, proof] of proofs.entries()) {
    if (proof.publicJwk.kty !== "EC" || proof.publicJwk.crv !== "P-256") {
      const at = proofs.length > 1 ? `proofs.jwt[${index}]: ` : "";
      throw new InvalidProof(`${at}an mdoc's device key must be a P-256 key: sign the proof with ES256`);
    }
  }
}

/**
 * One credential per proof carrying its status list entry ({idx, uri}), taken from the entries this
 * process claimed ahead (status-entry-pool.ts): an SD-JWT VC's `status.status_list`, or an mdoc's
 * MSO `status.status_list` (mdoc types).
 */
async function signCredentials(
  deps: Pick<IssuerDependencies, "credentialTtlSeconds" | "issuerUrl" | "now" | "statusEntries" | "statusListSizeOf">,
  offer: Offer,
  proofs: VerifiedCredentialProof[],
  { signer, statusListSigner }: CredentialSigner,
  type: CredentialTypeInfo | undefined,
): Promise<{ issued: IssuedArtifact[]; statusEntries: StatusEntry[] }> {
  const statusEntries = await deps.statusEntries.take({
    tenant: offer.tenant,
    signer: statusListSigner,
    count: proofs.length,
    size: () => deps.statusListSizeOf(offer.tenant),
    bits: STATUS_LIST_BITS,
    now: deps.now(),
  });
  const issuedAt = Math.floor(deps.now().getTime() / 1000);
  const issued = await Promise.all(
    proofs.map((proof, index) => {
      const entry = statusEntries[index]!;
      const statusList = { idx: entry.idx, uri: statusListUriOf(deps.issuerUrl, offer.tenant, entry.listId) };
      if (type?.format === "mso_mdoc") {
        return issueMdocCredential({
          signer,
          type,
          claims: offer.claims,
          devicePublicJwk: proof.publicJwk,
          issuedAt: new Date(issuedAt * 1000),
          expiresAt: new Date((issuedAt + deps.credentialTtlSeconds) * 1000),
          status: statusList,
        });
      }
      return issueSdJwtVc({
        signer,
        issuer: issuerIdentifierOf(deps.issuerUrl, offer.tenant),
        vct: offer.vct,
        claims: offer.claims,
        holderPublicJwk: proof.publicJwk,
        issuedAt,
        expiresAt: issuedAt + deps.credentialTtlSeconds,
        status: { status_list: statusList },
      });
    }),
  );
  return { issued, statusEntries };
}

/**
 * `is_on_chain`: the ledger gets SHA-256(salt || SHA-256(issuer JWT)), never the credential; the
 * salt stays on the issuer's record so the issuer can later show what was notarized.
 */
async function notarize(
  deps: Pick<IssuerDependencies, "notary">,
  offer: Pick<Offer, "tenant" | "id">,
  credentialId: string,
  issued: IssuedArtifact,
) {
  const salt = pooledRandomBytes(32);
  const digest = notarizedDigestOf(salt.toString("hex"), issued.issuerJwtSha256);
  const record = await deps.notary.enqueue({ tenant: offer.tenant, credentialId, digest, offerId: offer.id });
  return { chain: record.chain, objectId: record.objectId, salt: salt.toString("hex") };
}

/** The credentials' records; notarized (`is_on_chain`) ones carry the ledger's reference. */
async function credentialRecords(
  deps: Pick<IssuerDependencies, "credentialTtlSeconds" | "notary" | "now">,
  offer: Offer,
  proofs: VerifiedCredentialProof[],
  { issued, statusEntries }: { issued: IssuedArtifact[]; statusEntries: StatusEntry[] },
  isOnChain: boolean,
  notificationId: string,
): Promise<CredentialRecord[]> {
  const issuedAt = new Date(Math.floor(deps.now().getTime() / 1000) * 1000);
  return Promise.all(
    issued.map(async (credential, index): Promise<CredentialRecord> => {
      const proof = proofs[index]!;
      const id = randomUUID();
      return {
        id,
        tenant: offer.tenant,
        offerId: offer.id,
        credentialConfigurationId: offer.credentialConfigurationId,
        vct: offer.vct,
        issuerJwtSha256: credential.issuerJwtSha256,
        holderKeyThumbprint: jwkThumbprint(proof.publicJwk),
        ...(proof.did === undefined ? {} : { holderDid: proof.did }),
        status: "active",
        issuedAt,
        expiresAt: new Date(issuedAt.getTime() + deps.credentialTtlSeconds * 1000),
        statusEntry: statusEntries[index]!,
        notificationId,
        ...(isOnChain ? { notarization: await notarize(deps, offer, id, credential) } : {}),
      };
    }),
  );
}

/**
 * Signed credentials recorded: without notarization, in the one statement that spends the nonces
 * and takes the allowance; notarized, after that statement (the ledger's reference is asked for
 * only once the nonces and allowance are taken), giving the allowance back if that fails.
 */
async function recordIssuance(
  deps: Pick<IssuerDependencies, "issuanceReservations" | "issuanceAllowances" | "credentials"> &
    Pick<IssuerDependencies, "notary" | "credentialTtlSeconds" | "now">,
  offer: Offer,
  proofs: VerifiedCredentialProof[],
  signed: { issued: IssuedArtifact[]; statusEntries: StatusEntry[] },
  allowance: IssuanceAllowanceKey,
  options: { isOnChain: boolean; notificationId: string },
): Promise<CredentialRecord[]> {
  if (!options.isOnChain) {
    const records = await credentialRecords(deps, offer, proofs, signed, false, options.notificationId);
    await reserveIssuance(deps, proofs, allowance, records);
    return records;
  }
  await reserveIssuance(deps, proofs, allowance);
  try {
    const records = await credentialRecords(deps, offer, proofs, signed, true, options.notificationId);
    await deps.credentials.insertMany(records);
    return records;
  } catch (error) {
    // Nothing was issued (e.g. ledger unreachable): the wallet may retry within its allowance.
    await deps.issuanceAllowances.release(allowance, proofs.length, deps.now());
    throw error;
  }
}

/**
 * POST /credential after the access token (and its DPoP proof) passed: the configuration, the key
 * proofs, holder binding, one SD-JWT VC per proof on status list entries claimed ahead, then
 * single-use nonces, the token's issuance allowance (batch_size), optional notarization and the
 * issuer's credential records. Entries of credentials refused there (a spent nonce, the allowance
 * exhausted) go back to the pool: the credentials never left this process.
 *
 * Signed before that statement, not after it: the record holds the SHA-256 of the signed
 * credential (`issuer_jwt_sha256`), so the statement that stores it cannot come first without a
 * second write, and a signing failure after it would leave a spent nonce, a taken allowance and a
 * record of a credential nobody received. The offer it is signed from is the one the token step
 * redeemed in this process when there is one (`loadOffer`), so the step is that one statement.
 */
export async function issueCredentials(
  deps: IssueCredentialsDependencies,
  token: AccessTokenClaims,
  request: CredentialRequest,
): Promise<CredentialIssuance> {
  checkConfiguration(token, request);
  const { offer, issuerActive } = await loadOffer(deps, token);
  // Checked while the tenant check waits for its barrier; a deactivated issuer is still the answer first.
  const verifying = verifyProofs(deps, offer, request.proofJwts);
  verifying.catch(() => undefined);
  await issuerActive;
  const proofs = await verifying;
  await checkHolderBinding(deps, offer, proofs);
  const type = await deps.credentialTypes.findByVct(offer.vct);
  if (type?.format === "mso_mdoc") checkDeviceKeys(proofs);
  const credentialSigner = await credentialSignerOf(deps, offer);
  const allowance = { offerId: offer.id, credentialConfigurationId: request.credentialConfigurationId };
  // Random and unguessable (256 bits); only the offer's access token can use it.
  const notificationId = pooledRandomBytes(32).toString("base64url");
  const signed = await signCredentials(deps, offer, proofs, credentialSigner, type);
  let records: CredentialRecord[];
  try {
    records = await recordIssuance(deps, offer, proofs, signed, allowance, {
      isOnChain: request.isOnChain,
      notificationId,
    });
  } catch (error) {
    if (error instanceof InvalidProof || error instanceof CredentialRequestDenied) {
      deps.statusEntries.giveBack(offer.tenant, credentialSigner.statusListSigner, signed.statusEntries);
    }
    throw error;
  }
  const credentials = signed.issued.map((credential, index) => {
    const record = records[index]!;
    const notarization = record.notarization;
    return {
      credential: credential.credential,
      ...(notarization ? { reference: referenceOf(record, notarization) } : {}),
      credential_id: record.id,
      offer_id: record.offerId,
    };
  });
  return { credentials, notificationId, signing: offer.signing.mode };
}
