import type { AccessTokenVerifier, CNonces } from "@attesto/protocol";
import type { AccessTokenStatus } from "./access-token-status.js";
import type { ClaimsValidators } from "./claims-validators.js";
import type { IssuerConfigurationRepository } from "./issuer-configuration.js";
import type { IssuerKeyring } from "./issuer-keys.js";
import type { IssuerSigningKeyRepository } from "./issuer-signing-keys.js";
import type {
  ApiKeyAuthenticator,
  CredentialTypeCatalog,
  Ledger,
  Notary,
  SecretSealer,
  SignedStatusListCache,
  TenantDirectory,
  X509Signers,
} from "./ports.js";
import type {
  CredentialRepository,
  IssuanceAllowanceRepository,
  IssuanceReservationRepository,
  OfferRepository,
} from "./repositories.js";
import type { StatusEntryPool } from "./status-entry-pool.js";
import type { StatusListRepository } from "./status-lists.js";

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
