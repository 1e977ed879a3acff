import type { AnchorProof, JwtSigner } from "@attesto/protocol";
import type { CacheScope } from "@attesto/protocol/cache";

/** A credential configuration the trust registry provisioned for a tenant. */
export interface CredentialConfiguration {
  /** credential_configuration_id, e.g. "university-diploma". */
  id: string;
  type: string;
  version: string;
  vct: string;
}

export interface IssuerTenant {
  tenant: string;
  name: string;
  configurations: CredentialConfiguration[];
  /** When the trust registry last reactivated it after a deactivation: offers made before stay expired. */
  reactivatedAt?: Date;
}

/** Tenants and their credential configurations (trust registry). */
export interface TenantDirectory {
  /**
   * Undefined when no such tenant exists or it is deactivated. Never behind the trust registry: a
   * change committed before the call (a deactivation, a credential type added) is seen; with the
   * request's `scope` (`cacheScopeOf`), one committed before the request began.
   */
  find(tenant: string, scope?: CacheScope): Promise<IssuerTenant | undefined>;
}

export type JsonObject = { [key: string]: unknown };

/** Credential formats (OID4VCI 1.0 Appendix A): SD-JWT VC, or ISO/IEC 18013-5 mdoc. */
export type CredentialFormat = "dc+sd-jwt" | "mso_mdoc";

export interface CredentialTypeInfo {
  vct: string;
  name: string;
  format: CredentialFormat;
  /** The mdoc document type (mdoc types only). */
  doctype?: string;
  /** JSON Schema (2020-12) of the claims. */
  schema: JsonObject;
  /** The SD-JWT VC type metadata document (display, claims). */
  metadata: JsonObject;
}

/** Credential types (schema registry). */
export interface CredentialTypeCatalog {
  /** Undefined when the registry has no type with this vct. */
  findByVct(vct: string): Promise<CredentialTypeInfo | undefined>;
}

/** The ledger: DID documents of did:ledger DIDs. Outages throw 503. */
export interface Ledger {
  /** Undefined when the DID does not exist (or is not a valid did:ledger DID). */
  resolveDid(did: string): Promise<{ document: unknown; deactivated: boolean } | undefined>;
}

/**
 * Notarization through the scheduler: the digest is anchored on the ledger asynchronously, the
 * reference is final at once. Idempotent per credential id; 503 when the ledger is unreachable.
 */
export interface Notary {
  enqueue(input: {
    tenant: string;
    credentialId: string;
    digest: string;
    /** The offer the credential is issued for (in the scheduler's webhook events as `offer_id`). */
    offerId: string;
  }): Promise<{ chain: string; objectId: string }>;
  /**
   * The anchor of the notarization `objectId` whose enqueued digest is `digest` (GetAnchorProof);
   * undefined when the scheduler knows no such pair; 503 when it cannot be reached.
   */
  anchorProof(input: { objectId: string; digest: string }): Promise<AnchorProof | undefined>;
  /**
   * A credential webhook event for the tenant (`credential.status_changed`, `credential.accepted`,
   * `credential.failure`, `credential.deleted`), created once per `eventKey`; 503 when the
   * scheduler cannot be reached.
   */
  publishCredentialEvent(input: {
    tenant: string;
    type: CredentialEventType;
    credentialId: string;
    offerId: string;
    eventKey: string;
    data: Record<string, unknown>;
  }): Promise<void>;
}

export type CredentialEventType =
  | "credential.status_changed"
  | "credential.accepted"
  | "credential.failure"
  | "credential.deleted";

/** Signers over each tenant's X.509 signing key in key custody (`x5c` header). */
export interface X509Signers {
  signerFor(tenant: string): Promise<JwtSigner>;
}

/**
 * Seals secrets at rest (the runtime's envelope sealer, `@attesto/runtime/crypto`): `context` binds
 * an envelope to the row it belongs to, so a sealed value copied elsewhere does not open.
 */
export interface SecretSealer {
  seal(plaintext: Uint8Array, context: string): string;
  open(envelope: string, context: string): Uint8Array;
}

/** The tenant an X-API-Key belongs to, as the trust registry vouches for it. */
export interface ApiKeyTenant {
  accountUuid: string;
  tenant: string;
  name: string;
  isIssuer: boolean;
  isVerifier: boolean;
}

/** Checks X-API-Key values (`@attesto/tenant-client`: TenantService.AuthenticateApiKey); routes use it through `requireApiKey`. */
export interface ApiKeyAuthenticator {
  authenticate(apiKey: string): Promise<ApiKeyTenant>;
}

/** OID4VCI 1.0 display of a credential configuration. */
export interface CredentialDisplay {
  name: string;
  locale?: string;
  description?: string;
  background_color?: string;
  text_color?: string;
  logo?: { uri: string; alt_text?: string };
  background_image?: { uri: string };
}

/** A signed Status List Token and when it was signed. */
export interface SignedStatusList {
  token: string;
  /** Unix seconds (`iat`). */
  issuedAt: number;
  /** The list version it was built from. */
  version: string;
}

/**
 * Signed tokens kept per list for at most `ttl` seconds and only while the list's version is
 * unchanged: a status change is served by the next request, on every replica.
 */
export interface SignedStatusListCache {
  get(listId: string): SignedStatusList | undefined;
  set(listId: string, signed: SignedStatusList): void;
}
