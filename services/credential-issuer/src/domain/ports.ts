import type { KeyObject } from "node:crypto";
import type { AccessTokenVerifier, AnchorProof, CNonces, JwtSigner, StatusListBits } from "@attesto/protocol";
import type { CacheScope } from "@attesto/protocol/cache";
import type { FieldError } from "@attesto/runtime/errors";
import type {
  CredentialRecord,
  CredentialStatus,
  CredentialStatusChange,
  NotificationEvent,
} from "./credential-record.js";
import type { IssuerConfiguration } from "./issuer-configuration.js";
import type { IssuerSigningKey } from "./issuer-signing-keys.js";
import type { Offer, OfferSigning } from "./offer.js";
import type { OfferMemory } from "./offer-memory.js";
import type { StatusEntry } from "./status-lists.js";

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
  /**
   * Starts `scope`'s cache barrier now (the request's first statement runs meanwhile); `find` with
   * the same scope awaits it. What `find` sees is the same either way.
   */
  prepare(scope: CacheScope): void;
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
  /**
   * Undefined when the DID does not exist (or is not a valid did:ledger DID). Never behind the
   * ledger's DIDs; with `scope` (the request's, `cacheScopeOf`), as of the request's start: its
   * cache barrier is the one the request's first cached read took, not a round trip of its own.
   */
  resolveDid(did: string, scope?: CacheScope): Promise<{ document: unknown; deactivated: boolean } | undefined>;
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

export interface OfferRepository {
  /**
   * Stores a new offer; `signingKey`: the DID-path key it was verified with, stored in the same
   * statement (its sealed private key once per tenant and key, its public key by
   * IssuerSigningKeyRepository.record's rules), so an offer never exists without it. Left out when
   * this process stored that key lately (IssuerKeyring.isRecorded): the offer's insert alone.
   */
  insert(
    offer: Offer,
    signingKey?: { key: IssuerSigningKey; at: Date; privateKey: { id: string; sealed: string } },
  ): Promise<void>;
  findById(id: string): Promise<Offer | undefined>;
  findByCodeHash(codeHash: string): Promise<Offer | undefined>;
  findByIssuerState(issuerState: string): Promise<Offer | undefined>;
  /**
   * Atomically moves the live, unredeemed offer with this code hash (and transaction code hash,
   * when it requires one) to `redeemed`, recording the redemption's idempotency key. Of concurrent
   * calls exactly one gets the offer.
   */
  redeemPreAuthorizedCode(
    codeHash: string,
    txCodeHash: string | undefined,
    redemptionId: string | undefined,
    now: Date,
  ): Promise<Offer | undefined>;
  /** The same for the issuer_state of an authorization-code offer. */
  redeemIssuerState(issuerState: string, now: Date): Promise<Offer | undefined>;
  /** The newest DID-path offer of each (tenant, issuer kid) whose key is not in the tenant's signing keys. */
  findDidOffersWithUnrecordedKey(): Promise<Offer[]>;
}

export interface CredentialListQuery {
  tenant: string;
  offerId?: string;
  status?: CredentialStatus;
  offset: number;
  limit: number;
}

export type StatusChangeOutcome =
  | { outcome: "not_found" }
  /** Revoked is final: no change. */
  | { outcome: "final"; record: CredentialRecord }
  /** Already in that status; `change` is the latest change (if any) that brought it there. */
  | { outcome: "unchanged"; record: CredentialRecord; change?: CredentialStatusChange }
  | { outcome: "changed"; record: CredentialRecord; change: CredentialStatusChange };

export interface CredentialRepository {
  insertMany(records: CredentialRecord[]): Promise<void>;
  findByIssuerJwtSha256(digest: string): Promise<CredentialRecord | undefined>;
  /** One of the tenant's credentials; another tenant's is undefined. */
  find(tenant: string, id: string): Promise<CredentialRecord | undefined>;
  /** The tenant's credentials, newest first, and how many match in all. */
  list(query: CredentialListQuery): Promise<{ records: CredentialRecord[]; total: number }>;
  /**
   * In one transaction under the credential's row lock: its status, its status list entry (one
   * byte rewritten in one statement, the list's version raised) and the history row.
   */
  changeStatus(input: {
    tenant: string;
    id: string;
    to: CredentialStatus;
    actor: string;
    at: Date;
  }): Promise<StatusChangeOutcome>;
  /** The credential's status changes, oldest first. */
  statusHistory(tenant: string, id: string): Promise<CredentialStatusChange[]>;
  /**
   * Stores a wallet's notification (OID4VCI 1.0 §11) on the credentials issued with
   * `notificationId` to `offerId` in `tenant`; returns them (none: unknown id or another offer's).
   */
  recordNotification(input: {
    tenant: string;
    offerId: string;
    notificationId: string;
    event: NotificationEvent;
    description?: string;
    at: Date;
  }): Promise<CredentialRecord[]>;
  /** Marks a credential revoked (operator action; no public endpoint exists). */
  revoke(id: string, at: Date): Promise<boolean>;
}

/** Which draw on an issuance allowance: one offer (so one access token) and one credential configuration. */
export interface IssuanceAllowanceKey {
  offerId: string;
  credentialConfigurationId: string;
}

/**
 * How many credentials each access token has drawn per credential configuration, shared by every
 * replica: the `batch_size` bound over the token's lifetime.
 */
export interface IssuanceAllowanceRepository {
  /**
   * Atomically adds `count` to the key's credentials when the total stays within `limit`; false (and
   * nothing changed) otherwise. Of concurrent calls, only as many succeed as the limit allows.
   */
  reserve(key: IssuanceAllowanceKey, count: number, limit: number, now: Date): Promise<boolean>;
  /** Gives back a reservation whose credentials were not issued after all. */
  release(key: IssuanceAllowanceKey, count: number, now: Date): Promise<void>;
}

/** The writes of one credential request (IssuanceReservationRepository). */
export interface IssuanceReservationInput {
  /** The request's c_nonces (a batch's proofs may share one): each is spent once. */
  nonces: Array<{ value: string; expiresAt: Date }>;
  /** Then, only if every nonce was fresh: the token's allowance (batch_size). */
  allowance: { key: IssuanceAllowanceKey; count: number; limit: number };
  /**
   * Then, only if the allowance was reserved: the signed credentials' records, their status list
   * entries already claimed (status-entry-pool.ts). Left out when the credentials are recorded
   * later (notarized credentials: the ledger's reference is known only after the reservation).
   */
  records?: CredentialRecord[];
  now: Date;
}

export type IssuanceReservation =
  | { outcome: "nonce_used" }
  | { outcome: "allowance_exceeded" }
  | { outcome: "reserved" };

/**
 * The writes of a credential request in one database statement: single-use c_nonces, the issuance
 * allowance and the credentials' records, each only if the one before held. Each part keeps its
 * own guarantee under concurrency (on any replica), as when made alone.
 */
export interface IssuanceReservationRepository {
  reserve(input: IssuanceReservationInput): Promise<IssuanceReservation>;
}

/** Where issuer configurations are kept (store/issuer-configuration.store.ts); one per tenant. */
export interface IssuerConfigurationRepository {
  /** Never behind the table (`scope`: as of the request's start, `TenantDirectory.find`). */
  find(tenant: string, scope?: CacheScope): Promise<IssuerConfiguration | undefined>;
  /** Inserts or replaces the tenant's configuration unless the stored one has the same digest; whether it wrote. */
  put(configuration: IssuerConfiguration): Promise<boolean>;
  /** Whether there was one to delete. */
  delete(tenant: string): Promise<boolean>;
}

/** The DID-path keys each tenant has signed (or may sign) with; what its JWT VC Issuer Metadata lists. */
export interface IssuerSigningKeyRepository {
  /**
   * Records a verified key. The first use is kept; a `kid` recorded with another key is replaced
   * (the DID document the key was just verified against is authoritative).
   */
  record(key: IssuerSigningKey, at: Date): Promise<void>;
  listByTenant(tenant: string): Promise<IssuerSigningKey[]>;
}

/** The tenants' sealed DID-path private keys (`issuer_private_keys`, migration 0010). */
export interface IssuerPrivateKeyRepository {
  findSealed(id: string): Promise<string | undefined>;
}

/** The private key an offer signs with, and its thumbprint (which names its status lists). */
export interface OfferIssuerPrivateKey {
  key: KeyObject;
  thumbprint: string;
}

export interface IssuerKeyring {
  /** The DID-path offer's private key: imported once per tenant and key in this process. */
  keyOf(
    offer: Pick<Offer, "id" | "tenant"> & { signing: Extract<OfferSigning, { mode: "did" }> },
  ): Promise<OfferIssuerPrivateKey>;
  /**
   * Whether this process stored the tenant's key under `kid` lately (its sealed row and its
   * signing-key record): an offer with that key then needs the offer's insert only.
   */
  isRecorded(tenant: string, kid: string, thumbprint: string): boolean;
  markRecorded(tenant: string, kid: string, thumbprint: string): void;
}

/**
 * Whether the authorization server revoked an access token before its expiry (a replayed
 * authorization code revokes the token the code issued). Only tokens marked `revocable` are
 * looked up. Throws a 503 AppError when the authorization server cannot answer: a token whose
 * status is unknown must never get a credential.
 */
export interface AccessTokenStatus {
  isRevoked(jti: string): Promise<boolean>;
}

/**
 * Compiled JSON Schema (2020-12) validators of credential types, one per vct. A type whose schema
 * changed in the registry is compiled again; schemas come from the schema registry, which already
 * compiled them strictly, so unknown keywords are tolerated here.
 */
export interface ClaimsValidators {
  /**
   * Every violation at once, one entry per failing claim (`credential.claims.birth_date`: `must be
   * an ISO 8601 date (YYYY-MM-DD)`), in the platform's wording of field errors.
   */
  checkAll(vct: string, schema: JsonObject, claims: unknown): FieldError[];
}

/**
 * The key a list's tokens are signed with, the key that signed its credentials: `x509` (the
 * tenant's custody key) or `<kid> <JWK thumbprint>` of a DID-path key, whose private key is sealed
 * with the offer `signingOfferId`.
 */
export interface StatusListSigner {
  key: string;
  signingOfferId?: string;
}

/** One consistent read of a list: its bytes and the version they are at. */
export interface StatusListSnapshot {
  id: string;
  tenant: string;
  signer: StatusListSigner;
  bits: StatusListBits;
  size: number;
  statuses: Uint8Array;
  /** Raised by every status change of an entry of the list. */
  version: string;
}

/** Random index draws for status list entries (status-index-draws.ts): CSPRNG, uniform. */
export interface StatusIndexDraws {
  /**
   * `count` independent uniform draws in [0, 2^30). The store takes each modulo the list's size (a
   * power of two, so still uniform) and keeps the first free ones: each is uniform among the free.
   */
  draws(count: number): number[];
  /** Up to `count` distinct members of `free`, uniformly at random (a nearly full list). */
  among(free: number[], count: number): number[];
}

export interface AllocateStatusEntriesInput {
  tenant: string;
  signer: StatusListSigner;
  count: number;
  /** Entries of a list opened for this allocation. */
  size: number;
  bits: StatusListBits;
  now: Date;
}

/** The tenants' status lists (store/status-list.store.ts). Every query is scoped to one tenant. */
export interface StatusListRepository {
  /**
   * `count` entries from the tenant's open lists of this signer, at indexes chosen from `draws`; a
   * full list is closed and a new one of `size` entries opened. Concurrent callers never get the
   * same entry, on any replica.
   */
  allocate(input: AllocateStatusEntriesInput, draws: StatusIndexDraws): Promise<StatusEntry[]>;
  /** The list's version only (cheap: whether a signed token is still current). */
  findVersion(tenant: string, listId: string): Promise<string | undefined>;
  find(tenant: string, listId: string): Promise<StatusListSnapshot | undefined>;
}

export interface TakeStatusEntriesInput {
  tenant: string;
  signer: StatusListSigner;
  count: number;
  /** The size of a list opened by a refill (read only then). */
  size: () => Promise<number>;
  bits: StatusListBits;
  now: Date;
}

/**
 * Status list entries claimed ahead of use, so a credential can be signed with its entry before the
 * one statement that records it (issuance-reservation). Unique allocation still holds on every
 * replica: each entry is claimed in the database (`StatusListRepository.allocate`: an inserted
 * `(list, idx)` row) before this process holds it, and this process hands each one out once.
 * Herd privacy holds too: the claimed indexes are uniform among the free ones, and handed out in
 * the order drawn. An entry whose credential was not recorded (nonce spent, allowance exceeded)
 * is given back: nothing outside this process ever saw it. Entries held when the process stops
 * stay claimed and unused (VALID in the list, as any entry of a credential that failed to issue).
 */
export interface StatusEntryPool {
  take(input: TakeStatusEntriesInput): Promise<StatusEntry[]>;
  giveBack(tenant: string, signer: StatusListSigner, entries: StatusEntry[]): void;
}

/** The key an offer's credentials are signed with (credential-signer.ts), and the status lists it signs. */
export interface CredentialSigner {
  signer: JwtSigner;
  /** The status lists this key signs: the lists of the credentials it signs. */
  statusListSigner: StatusListSigner;
}

/** Server-issued DPoP nonces (RFC 9449 §8) of the credential endpoint. */
export interface DpopNonceSource {
  issue(): string;
  verify(nonce: string): boolean;
}

/** Single-use values kept until they expire (c_nonces, DPoP jtis). */
export interface ReplayStore {
  consume(namespace: string, value: string, expiresAt: Date): Promise<boolean>;
}

/** Everything the issuer's routes, RPC handlers and use cases work with; built once per app. */
export interface IssuerDependencies {
  /** Public URL of the issuer, without a trailing slash. */
  issuerUrl: string;
  /** Public URL of the authorization server (metadata `authorization_servers`, offer documents). */
  authorizationServerUrl: string;
  /** Public URLs for the landing page's links. */
  links: { schemaRegistryUrl: string; trustRegistryUrl: string };
  tenants: TenantDirectory;
  /** X-API-Key authentication through the trust registry (POST /v1/offers). */
  apiKeys: ApiKeyAuthenticator;
  credentialTypes: CredentialTypeCatalog;
  claimsValidators: ClaimsValidators;
  ledger: Ledger;
  notary: Notary;
  x509Signers: X509Signers;
  accessTokens: AccessTokenVerifier;
  /** Revocation of `revocable` access tokens, at the authorization server (TokenStatusService). */
  accessTokenStatus: AccessTokenStatus;
  sealer: SecretSealer;
  offers: OfferRepository;
  /** Offers as this process wrote them: the offer document's and credential step's offer without a read. */
  offerMemory: OfferMemory;
  credentials: CredentialRepository;
  /** Credentials drawn per access token and configuration (the batch_size bound). */
  issuanceAllowances: IssuanceAllowanceRepository;
  /** c_nonces, allowance and credential records of a credential request, taken in one statement. */
  issuanceReservations: IssuanceReservationRepository;
  /** Tenants' issuer configurations (IssuerService); a tenant without one gets the platform defaults. */
  issuerConfigurations: IssuerConfigurationRepository;
  /** The DID-path keys each tenant signs with (its JWT VC Issuer Metadata). */
  issuerSigningKeys: IssuerSigningKeyRepository;
  /** DID-path private keys, imported once per tenant and key (issuer-keys.ts). */
  issuerKeys: IssuerKeyring;
  /** The tenants' Token Status Lists. */
  statusLists: StatusListRepository;
  /** Status list entries this process claimed ahead, handed out to credentials before they are signed. */
  statusEntries: StatusEntryPool;
  /** Entries of a status list opened for the tenant (its Issuer resource, else STATUS_LIST_SIZE). */
  statusListSizeOf(tenant: string): Promise<number>;
  /** `ttl` of Status List Tokens and their `Cache-Control: max-age` (STATUS_LIST_TTL_SECONDS). */
  statusListTtlSeconds: number;
  /** `exp` - `iat` of Status List Tokens (STATUS_LIST_TOKEN_LIFETIME_SECONDS). */
  statusListTokenLifetimeSeconds: number;
  signedStatusLists: SignedStatusListCache;
  cNonces: CNonces;
  dpopNonces: DpopNonceSource;
  /** Status of /credential's DPoP error responses (CREDENTIAL_DPOP_NONCE_STATUS; RFC 9449: 401). */
  dpopErrorStatus: 400 | 401;
  replay: ReplayStore;
  credentialTtlSeconds: number;
  now: () => Date;
}
