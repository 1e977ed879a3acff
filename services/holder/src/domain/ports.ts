import type { AnchorProof, Certificate, StatusListTokenSource } from "@attesto/protocol";
import type { HolderTokens } from "./accounts/holder-token.js";
import type { LoginAttemptDecision, LoginAttemptKey, LoginAttemptState } from "./accounts/login-throttle.js";
import type { FlowAttestation, HolderDid, StoredCredential, User } from "./model.js";
import type { AuthorizationFlow, AuthorizationFlowSecrets, FlowOutcome } from "./oid4vci/authorization-flow.js";

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False on a mismatch or an unreadable hash. */
  verify(passwordHash: string, password: string): Promise<boolean>;
}

export interface UserRepository {
  insert(user: User): Promise<void>;
  find(uuid: string): Promise<User | undefined>;
}

export interface DidRepository {
  /** Records the DID for the holder; a DID the holder already has is returned unchanged. */
  insert(did: HolderDid): Promise<HolderDid>;
  find(userUuid: string, did: string): Promise<HolderDid | undefined>;
  list(userUuid: string): Promise<HolderDid[]>;
  /** False when the holder has no such DID. */
  delete(userUuid: string, did: string): Promise<boolean>;
}

export interface CredentialRepository {
  insert(credential: StoredCredential): Promise<void>;
  /** One of the holder's credentials that is not deleted, with its contents. */
  find(userUuid: string, id: string): Promise<StoredCredential | undefined>;
  /** Every credential of the holder that is not deleted, with contents, oldest first (listing, DCQL matching). */
  listWithContents(userUuid: string): Promise<StoredCredential[]>;
  /** Soft delete; false when the holder has no such credential (or it is already deleted). */
  softDelete(userUuid: string, id: string, at: Date): Promise<boolean>;
  /** Keeps the anchor of a notarized credential once it is anchored. */
  recordAnchor(userUuid: string, id: string, anchor: AnchorProof): Promise<void>;
}

/**
 * The scheduler's NotaryService as the holder uses it: the anchor of a notarization for whoever
 * names its digest (GetAnchorProof); undefined when unknown; 503 when it cannot be reached.
 */
export interface Notary {
  anchorProof(input: { objectId: string; digest: string }): Promise<AnchorProof | undefined>;
}

/** A DID document as the ledger serves it, or undefined when the DID is unknown. */
export interface ResolvedDid {
  document: unknown;
  deactivated: boolean;
}

/** The ledger (LedgerService). Unreachable: AppError 503 `unavailable`. */
export interface Ledger {
  createDid(publicJwk: {
    kty: string;
    crv: string;
    x: string;
  }): Promise<{ did: string; keyId: string; document: unknown }>;
  resolveDid(did: string): Promise<ResolvedDid | undefined>;
  /** Resolves when the ledger answers; throws 503 when it cannot be reached. */
  assertReachable(): Promise<void>;
}

export interface OutboundRequest {
  method: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Overrides the deadline for this request. */
  timeoutMs?: number;
  /** Overrides the response size limit for this request. */
  maxBytes?: number;
  /** Read and drop the body (up to the size limit): `text` is empty. */
  discardBody?: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: Headers;
  /** The body as text, at most the size limit. */
  text: string;
  /** The final URL (after redirects). */
  url: string;
}

/**
 * HTTP to parties the holder does not control (issuers, authorization servers, verifiers): the
 * runtime's outbound request guard (public addresses only unless allowed, https unless allowed,
 * redirects re-checked, a deadline and a response size limit), adapted in `clients/outbound-http.ts`.
 */
/** Where a use case reports what must not fail the user's action (the request's logger). */
export interface WarningLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface OutboundHttp {
  /** Why `url` may not be fetched at all (not absolute http(s), credentials, http not allowed), or undefined. */
  checkUrl(url: string): string | undefined;
  /** One request; anything but an HTTP answer rejects with `ThirdPartyUnreachable`. */
  request(url: string, request: OutboundRequest): Promise<OutboundResponse>;
}

/**
 * No HTTP answer from a third party (a refused address, a refused connection, a timeout, an
 * oversized answer). The message says nothing about the network; the cause (logged) does.
 */
export class ThirdPartyUnreachable extends Error {
  override name = "ThirdPartyUnreachable";
}

/**
 * Roots a verifier's certificate chain (request objects of x509_hash / x509_san_dns client ids)
 * must lead to: the platform's root CA plus the configured ones.
 */
export interface VerifierTrustAnchors {
  anchors(): Promise<Certificate[]>;
}

export interface LoginAttemptRepository {
  /**
   * Reads the pair's state and stores `decide`'s next state when it allows the attempt, atomically:
   * concurrent attempts of one pair are decided one after the other.
   */
  claim(
    key: LoginAttemptKey,
    decide: (current: LoginAttemptState | undefined) => LoginAttemptDecision,
  ): Promise<LoginAttemptDecision>;
  /** Forgets the pair (the right password was given). */
  clear(key: LoginAttemptKey): Promise<void>;
  /** Removes pairs quiet since before `before` and no longer blocked. */
  purge(before: Date): Promise<void>;
}

export interface AuthorizationFlowRepository {
  insert(flow: AuthorizationFlow & { stateHash: string; secrets: AuthorizationFlowSecrets }): Promise<void>;
  /** Flows of the user still pending and unexpired at `now`. */
  countPending(userUuid: string, now: Date): Promise<number>;
  /**
   * Atomically takes the pending, unexpired flow of this state (pending -> redeeming), with its
   * secrets: only one callback can ever finish a flow. Undefined when there is none.
   */
  claim(stateHash: string, now: Date): Promise<(AuthorizationFlow & { secrets: AuthorizationFlowSecrets }) | undefined>;
  findByStateHash(stateHash: string): Promise<AuthorizationFlow | undefined>;
  find(userUuid: string, id: string): Promise<AuthorizationFlow | undefined>;
  /** Records the outcome and erases the secrets. */
  end(id: string, outcome: FlowOutcome, at: Date): Promise<void>;
  /** Deletes flows that expired before `before`. */
  purge(before: Date): Promise<void>;
}

/** The holder as an OAuth client of authorization servers: its client_id and how it is attested. */
export interface WalletClient {
  clientId: string;
  /** The attestation a new flow presents, or undefined when none is configured (the PAR is then unauthenticated). */
  attestationForFlow(now: Date): Promise<FlowAttestation | undefined>;
}

/** Everything the holder's use cases need, passed explicitly (tests pass doubles). */
export interface HolderDependencies {
  users: UserRepository;
  dids: DidRepository;
  credentials: CredentialRepository;
  passwords: PasswordHasher;
  tokens: HolderTokens;
  /** Failed-login throttling per (account, client network). */
  loginAttempts: LoginAttemptRepository;
  ledger: Ledger;
  /** The scheduler: anchors of notarized credentials (GetAnchorProof). */
  notary: Notary;
  http: OutboundHttp;
  /** Roots verifiers' certificates must chain to (x509 client ids). */
  verifierTrustAnchors: VerifierTrustAnchors;
  /** Issuers' Token Status Lists (through `http`, cached by their ttl), for the status of held credentials. */
  statusLists: StatusListTokenSource;
  /** Authorization code flows waiting for the browser's return. */
  authorizationFlows: AuthorizationFlowRepository;
  /** The holder as an OAuth client (client_id, client attestation) of authorization servers. */
  wallet: WalletClient;
  /** The redirect_uri of authorization code flows: `<PUBLIC_URL>/v1/oid4vci/callback`. */
  callbackUrl: string;
  authorizationFlowTtlSeconds: number;
  /** Tolerance on time claims of credentials and request objects. */
  clockSkewSeconds: number;
  now: () => Date;
}
