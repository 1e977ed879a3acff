import { createHash, randomUUID } from "node:crypto";
import { isDid, jwkThumbprint, type PublicJwk, pooledRandomBytes, RESERVED_CLAIM_NAMES } from "@attesto/protocol";
import type { CacheScope } from "@attesto/protocol/cache";
import { AppError, type FieldError, invalidFields } from "@attesto/runtime/errors";
import type { IssuerConfiguration } from "./issuer-configuration.js";
import { issuerKeyContext, issuerKeyId } from "./issuer-keys.js";
import { type Offer, type OfferFlow, type OfferGrant, type OfferSigning, preAuthorizedCodeContext } from "./offer.js";
import type { CredentialConfiguration, IssuerDependencies } from "./ports.js";
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
  /**
   * The request's cache scope (`cacheScopeOf`): the configuration, tenant and issuer DID reads trust
   * the barrier its API key check took (nothing here writes a cached table before reading one).
   */
  cacheScope?: CacheScope;
}

export interface CreatedOffer {
  offer: Offer;
  credentialOfferUri: string;
  deepLink: string;
  qrCodeUrl: string;
  pageUrl: string;
}

/** What creating an offer works with. */
export type CreateOfferDependencies = Pick<IssuerDependencies, "tenants" | "issuerConfigurations" | "credentialTypes"> &
  Pick<IssuerDependencies, "claimsValidators" | "ledger" | "issuerKeys" | "sealer" | "offers" | "issuerUrl" | "now"> &
  Pick<IssuerDependencies, "offerMemory">;

type SigningRequest = { mode: "did"; issuerDid: string; issuerPrivateKey: string } | { mode: "x509" };

export const sha256Hex = (value: string) => createHash("sha256").update(value).digest("hex");

/** transaction codes are not offered yet. */
function transactionCodeErrors(input: CreateOfferInput): FieldError[] {
  return input.requireTransactionCode
    ? [{ field: "require_transaction_code", message: "must be false: transaction codes are not supported yet" }]
    : [];
}

/**
 * Both DID fields: DID path; neither: X.509 path; only one: 400 (this service's README). A tenant whose issuer
 * configuration says DID has no X.509 default: an offer without the DID fields is a 400.
 */
function selectSigningMode(
  input: CreateOfferInput,
  configured: IssuerConfiguration | undefined,
): { request?: SigningRequest; errors: FieldError[] } {
  const { issuerDid, issuerPrivateKey } = input;
  if (issuerDid !== undefined && issuerPrivateKey !== undefined) {
    return { request: { mode: "did", issuerDid, issuerPrivateKey }, errors: [] };
  }
  if (issuerDid === undefined && issuerPrivateKey === undefined) {
    if (configured?.signingMode === "did") {
      const message = "is required: this tenant's issuer is configured for DID signing";
      return {
        errors: [
          { field: "issuer_did", message },
          { field: "issuer_private_key", message },
        ],
      };
    }
    return { request: { mode: "x509" }, errors: [] };
  }
  const both = "(give both for DID signing, or neither for X.509 signing)";
  return {
    errors: [
      issuerDid === undefined
        ? { field: "issuer_private_key", message: `requires issuer_did ${both}` }
        : { field: "issuer_did", message: `requires issuer_private_key ${both}` },
    ],
  };
}

function holderDidErrors(holderDid: string | undefined): FieldError[] {
  if (holderDid === undefined) return [];
  if (!isDid(holderDid)) return [{ field: "holder_did", message: "is not a valid DID" }];
  if (!HOLDER_DID_METHODS.some((prefix) => holderDid.startsWith(prefix))) {
    return [{ field: "holder_did", message: "uses an unsupported DID method (did:ledger and did:key are supported)" }];
  }
  return [];
}

async function findConfiguration(
  deps: Pick<IssuerDependencies, "tenants">,
  tenant: string,
  configurationId: string,
  configured: IssuerConfiguration | undefined,
  scope: CacheScope | undefined,
): Promise<{ configuration?: CredentialConfiguration; errors: FieldError[] }> {
  // A credential type added a moment ago (`attesto types add`) is usable: the directory is never behind.
  const configuration = (await deps.tenants.find(tenant, scope))?.configurations.find(
    (candidate) => candidate.id === configurationId,
  );
  if (!configuration) {
    return {
      errors: [{ field: "credential.config_id", message: "is not a credential configuration of this tenant" }],
    };
  }
  if (configured && !configured.credentialConfigurations.some((offered) => offered.id === configurationId)) {
    return {
      errors: [
        {
          field: "credential.config_id",
          message: `is not offered by this tenant's issuer (its issuer configuration offers: ${configured.credentialConfigurations.map((c) => c.id).join(", ")})`,
        },
      ],
    };
  }
  return { configuration, errors: [] };
}

/**
 * Claims must conform to the JSON Schema of the configuration's credential type. An mdoc type's
 * claims are `{namespace: {element: value}}`, and mdocs are signed only on the X.509 path (their
 * `x5chain` is the tenant's certificate chain). Every failing claim is reported at once.
 */
async function claimErrors(
  deps: Pick<IssuerDependencies, "claimsValidators" | "credentialTypes">,
  configuration: CredentialConfiguration,
  claims: Record<string, unknown>,
  signing: SigningRequest | undefined,
): Promise<FieldError[]> {
  const type = await deps.credentialTypes.findByVct(configuration.vct);
  if (!type) {
    throw new AppError(500, "server_error", `credential type ${configuration.vct} is unknown to the schema registry`);
  }
  const schemaErrors = deps.claimsValidators.checkAll(type.vct, type.schema, claims);
  if (type.format === "mso_mdoc") {
    const signingErrors =
      signing !== undefined && signing.mode !== "x509"
        ? [
            {
              field: "issuer_did",
              message:
                "must be omitted: mdoc credentials are signed with the tenant's X.509 certificate (omit issuer_did and issuer_private_key)",
            },
          ]
        : [];
    return [...schemaErrors, ...signingErrors];
  }
  const reserved = Object.keys(claims)
    .filter((name) => RESERVED_CLAIMS.has(name))
    .map((name) => ({ field: `credential.claims.${name}`, message: "is reserved by SD-JWT VC and cannot be a claim" }));
  return [...reserved, ...schemaErrors];
}

/** The DID path's key, verified against the DID: what the offer names and what is stored with it. */
interface PreparedSigning {
  signing: OfferSigning;
  /** The key to store with the offer; absent on the X.509 path. */
  key?: { publicJwk: PublicJwk; thumbprint: string; privateJwk: Record<string, string> };
}

async function prepareSigning(
  deps: Pick<IssuerDependencies, "ledger">,
  request: SigningRequest,
  scope: CacheScope | undefined,
): Promise<PreparedSigning> {
  if (request.mode === "x509") return { signing: { mode: "x509" } };
  const key = await verifyIssuerKey(deps.ledger, request.issuerDid, request.issuerPrivateKey, scope);
  const thumbprint = jwkThumbprint(key.publicJwk);
  return {
    signing: { mode: "did", issuerDid: request.issuerDid, issuerKid: key.kid, alg: key.alg, key: { thumbprint } },
    key: { publicJwk: key.publicJwk, thumbprint, privateJwk: key.privateJwk },
  };
}

/**
 * The DID-path key stored in the offer's statement: its public record and its private key, sealed
 * once per tenant and key. Nothing when this process stored the same key under the same `kid`
 * lately (the rows are there: a stored private key never changes, and the record was current then).
 */
function signingKeyToStore(
  deps: Pick<IssuerDependencies, "issuerKeys" | "sealer">,
  offer: Offer,
  prepared: PreparedSigning,
  now: Date,
) {
  const { signing, key } = prepared;
  if (signing.mode !== "did" || !key) return undefined;
  if (deps.issuerKeys.isRecorded(offer.tenant, signing.issuerKid, key.thumbprint)) return undefined;
  const id = issuerKeyId(offer.tenant, key.thumbprint);
  return {
    key: {
      tenant: offer.tenant,
      kid: signing.issuerKid,
      did: signing.issuerDid,
      publicJwk: key.publicJwk,
      alg: signing.alg,
    },
    at: now,
    privateKey: {
      id,
      sealed: deps.sealer.seal(new TextEncoder().encode(JSON.stringify(key.privateJwk)), issuerKeyContext(id)),
    },
  };
}

function createGrant(deps: Pick<IssuerDependencies, "sealer">, offerId: string, flow: OfferFlow): OfferGrant {
  if (flow === "authorization-code") return { type: "authorization-code", issuerState: randomUUID() };
  // From the process's CSPRNG pool (random-pool.ts), as c_nonces and salts are: no randomBytes call per offer.
  const code = pooledRandomBytes(PRE_AUTHORIZED_CODE_BYTES).toString("base64url");
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
 * seals the code (and the key, once per tenant and key), and stores the offer.
 */
export async function createOffer(deps: CreateOfferDependencies, input: CreateOfferInput): Promise<CreatedOffer> {
  // Every failing field at once: the request's own rules, the configuration, the claims.
  const configured = await deps.issuerConfigurations.find(input.tenant, input.cacheScope);
  const signingMode = selectSigningMode(input, configured);
  const found = await findConfiguration(deps, input.tenant, input.configurationId, configured, input.cacheScope);
  const errors = [
    ...found.errors,
    ...(found.configuration ? await claimErrors(deps, found.configuration, input.claims, signingMode.request) : []),
    ...transactionCodeErrors(input),
    ...signingMode.errors,
    ...holderDidErrors(input.holderDid),
  ];
  const { configuration } = found;
  const signingRequest = signingMode.request;
  if (errors.length > 0 || !configuration || !signingRequest) throw invalidFields(errors);
  const id = randomUUID();
  const prepared = await prepareSigning(deps, signingRequest, input.cacheScope);
  const now = deps.now();
  const offer: Offer = {
    id,
    tenant: input.tenant,
    credentialConfigurationId: configuration.id,
    vct: configuration.vct,
    claims: input.claims,
    signing: prepared.signing,
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
  const signingKey = signingKeyToStore(deps, offer, prepared, now);
  await deps.offers.insert(offer, signingKey);
  // Committed: the wallet's offer document is served from it without a read (offer-memory.ts).
  deps.offerMemory.remember(offer);
  if (signingKey) deps.issuerKeys.markRecorded(offer.tenant, signingKey.key.kid, prepared.key!.thumbprint);
  return { offer, ...offerLinksOf(deps.issuerUrl, id) };
}
