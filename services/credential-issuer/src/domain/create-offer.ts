import { createHash, randomBytes, randomUUID } from "node:crypto";
import { isDid, type PublicJwk, RESERVED_CLAIM_NAMES } from "@attesto/protocol";
import { AppError, badRequest, invalidFields } from "@attesto/runtime/errors";
import type { IssuerDependencies } from "./dependencies.js";
import type { IssuerConfiguration } from "./issuer-configuration.js";
import {
  type Offer,
  type OfferFlow,
  type OfferGrant,
  type OfferSigning,
  preAuthorizedCodeContext,
  privateKeyContext,
} from "./offer.js";
import type { CredentialConfiguration } from "./ports.js";
import { verifyIssuerKey } from "./verify-issuer-key.js";

/** Offer lifetime bounds and default, in seconds (this service's README). */
export const OFFER_TTL_SECONDS = { min: 60, max: 86_400, default: 3_600 } as const;

/** Bytes of randomness in a pre-authorized code. */
const PRE_AUTHORIZED_CODE_BYTES = 32;

/** Holder DIDs whose keys a proof can be checked against. */
const HOLDER_DID_METHODS = ["did:key:", "did:ledger:"];

/** JWT claims an SD-JWT VC sets itself; a credential's claims cannot use these names. */
const RESERVED_CLAIMS = new Set<string>(RESERVED_CLAIM_NAMES);

export interface CreateOfferInput {
  tenant: string;
  configurationId: string;
  claims: Record<string, unknown>;
  flow: OfferFlow;
  issuerDid?: string;
  issuerPrivateKey?: string;
  holderDid?: string;
  /** Omitted: the tenant's configured default offer TTL, else OFFER_TTL_SECONDS.default. */
  expiresInSeconds?: number;
  requireTransactionCode: boolean;
}

export interface CreatedOffer {
  offer: Offer;
  credentialOfferUri: string;
  deepLink: string;
  qrCodeUrl: string;
  pageUrl: string;
}

type SigningRequest = { mode: "did"; issuerDid: string; issuerPrivateKey: string } | { mode: "x509" };

export const sha256Hex = (value: string) => createHash("sha256").update(value).digest("hex");

/** transaction codes are not offered yet. */
function rejectTransactionCode(input: CreateOfferInput): void {
  if (input.requireTransactionCode) {
    throw badRequest("require_transaction_code: true is not supported yet; omit it or set it to false");
  }
}

/**
 * Both DID fields: DID path; neither: X.509 path; only one: 400 (this service's README). A tenant whose issuer
 * configuration says DID has no X.509 default: an offer without the DID fields is a 400.
 */
function selectSigningMode(input: CreateOfferInput, configured: IssuerConfiguration | undefined): SigningRequest {
  const { issuerDid, issuerPrivateKey } = input;
  if (issuerDid !== undefined && issuerPrivateKey !== undefined) return { mode: "did", issuerDid, issuerPrivateKey };
  if (issuerDid === undefined && issuerPrivateKey === undefined) {
    if (configured?.signingMode === "did") {
      throw badRequest(
        `the issuer of tenant '${input.tenant}' is configured for DID signing: give issuer_did and issuer_private_key`,
      );
    }
    return { mode: "x509" };
  }
  throw badRequest(
    issuerDid === undefined
      ? "issuer_private_key requires issuer_did (give both for DID signing, or neither for X.509 signing)"
      : "issuer_did requires issuer_private_key (give both for DID signing, or neither for X.509 signing)",
  );
}

function checkHolderDid(holderDid: string | undefined): void {
  if (holderDid === undefined) return;
  if (!isDid(holderDid)) throw badRequest("holder_did is not a valid DID");
  if (!HOLDER_DID_METHODS.some((prefix) => holderDid.startsWith(prefix))) {
    throw badRequest("holder_did uses an unsupported DID method (did:ledger and did:key are supported)");
  }
}

async function findConfiguration(
  deps: IssuerDependencies,
  tenant: string,
  configurationId: string,
  configured: IssuerConfiguration | undefined,
): Promise<CredentialConfiguration> {
  const configurationOf = (found: Awaited<ReturnType<typeof deps.tenants.find>>) =>
    found?.configurations.find((candidate) => candidate.id === configurationId);
  // A credential type added since the tenant was cached (`attesto types add`) is usable at once.
  const configuration =
    configurationOf(await deps.tenants.find(tenant)) ??
    configurationOf(await deps.tenants.find(tenant, { fresh: true }));
  if (!configuration) {
    throw badRequest("credential.config_id is not a credential configuration of this tenant");
  }
  if (configured && !configured.credentialConfigurations.some((offered) => offered.id === configurationId)) {
    throw badRequest(
      `credential.config_id is not offered by this tenant's issuer (its issuer configuration offers: ${configured.credentialConfigurations.map((c) => c.id).join(", ")})`,
    );
  }
  return configuration;
}

/**
 * Claims must conform to the JSON Schema of the configuration's credential type. An mdoc type's
 * claims are `{namespace: {element: value}}`; every failing element is reported at once, and mdocs
 * are signed only on the X.509 path (their `x5chain` is the tenant's certificate chain).
 */
async function validateClaims(
  deps: IssuerDependencies,
  configuration: CredentialConfiguration,
  claims: Record<string, unknown>,
  signing: SigningRequest,
): Promise<void> {
  const type = await deps.credentialTypes.findByVct(configuration.vct);
  if (!type) {
    throw new AppError(500, "server_error", `credential type ${configuration.vct} is unknown to the schema registry`);
  }
  if (type.format === "mso_mdoc") {
    const errors = deps.claimsValidators.checkAll(type.vct, type.schema, claims);
    if (errors.length > 0) throw invalidFields(errors);
    if (signing.mode !== "x509") {
      throw badRequest(
        "mdoc credentials are signed with the tenant's X.509 certificate: omit issuer_did and issuer_private_key",
      );
    }
    return;
  }
  const reserved = Object.keys(claims).find((name) => RESERVED_CLAIMS.has(name));
  if (reserved) throw badRequest(`credential.claims.${reserved} is reserved by SD-JWT VC and cannot be a claim`);
  const violation = deps.claimsValidators.check(type.vct, type.schema, claims);
  if (violation) throw badRequest(violation);
}

async function prepareSigning(
  deps: IssuerDependencies,
  offerId: string,
  request: SigningRequest,
): Promise<{ signing: OfferSigning; publicJwk?: PublicJwk }> {
  if (request.mode === "x509") return { signing: { mode: "x509" } };
  const key = await verifyIssuerKey(deps.ledger, request.issuerDid, request.issuerPrivateKey);
  const sealedPrivateKey = deps.sealer.seal(
    new TextEncoder().encode(JSON.stringify(key.privateJwk)),
    privateKeyContext(offerId),
  );
  return {
    signing: { mode: "did", issuerDid: request.issuerDid, issuerKid: key.kid, alg: key.alg, sealedPrivateKey },
    publicJwk: key.publicJwk,
  };
}

function createGrant(deps: IssuerDependencies, offerId: string, flow: OfferFlow): OfferGrant {
  if (flow === "authorization-code") return { type: "authorization-code", issuerState: randomUUID() };
  const code = randomBytes(PRE_AUTHORIZED_CODE_BYTES).toString("base64url");
  return {
    type: "pre-authorized",
    codeHash: sha256Hex(code),
    sealedCode: deps.sealer.seal(new TextEncoder().encode(code), preAuthorizedCodeContext(offerId)),
  };
}

/** The offer's URI, its `openid-credential-offer://` deep link, and that link's QR code and public page (this service's README). */
export function offerLinksOf(
  issuerUrl: string,
  offerId: string,
): { credentialOfferUri: string; deepLink: string; qrCodeUrl: string; pageUrl: string } {
  const credentialOfferUri = `${issuerUrl}/v1/offers/${offerId}`;
  return {
    credentialOfferUri,
    deepLink: `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(credentialOfferUri)}`,
    qrCodeUrl: `${credentialOfferUri}/qr.svg`,
    pageUrl: `${credentialOfferUri}/page`,
  };
}

/**
 * POST /v1/offers (this service's README): checks the request rule by rule, verifies the issuer's DID key,
 * seals the key and the code, and stores the offer.
 */
export async function createOffer(deps: IssuerDependencies, input: CreateOfferInput): Promise<CreatedOffer> {
  rejectTransactionCode(input);
  const configured = await deps.issuerConfigurations.find(input.tenant);
  const signingRequest = selectSigningMode(input, configured);
  checkHolderDid(input.holderDid);
  const configuration = await findConfiguration(deps, input.tenant, input.configurationId, configured);
  await validateClaims(deps, configuration, input.claims, signingRequest);
  const id = randomUUID();
  const { signing, publicJwk } = await prepareSigning(deps, id, signingRequest);
  const now = deps.now();
  const offer: Offer = {
    id,
    tenant: input.tenant,
    credentialConfigurationId: configuration.id,
    vct: configuration.vct,
    claims: input.claims,
    signing,
    grant: createGrant(deps, id, input.flow),
    ...(input.holderDid === undefined ? {} : { holderDid: input.holderDid }),
    status: "offered",
    expiresAt: new Date(
      now.getTime() +
        (input.expiresInSeconds ?? configured?.defaultOfferTtlSeconds ?? OFFER_TTL_SECONDS.default) * 1000,
    ),
    createdAt: now,
  };
  // The key the tenant's credentials will carry as `kid`: listed in its JWT VC Issuer Metadata.
  const signingKey =
    signing.mode === "did" && publicJwk
      ? {
          key: { tenant: offer.tenant, kid: signing.issuerKid, did: signing.issuerDid, publicJwk, alg: signing.alg },
          at: now,
        }
      : undefined;
  await deps.offers.insert(offer, signingKey);
  return { offer, ...offerLinksOf(deps.issuerUrl, id) };
}
