import type { CredentialSummary, HolderDid, StoredCredential, User } from "./model.js";

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
  /** The holder's credentials that are not deleted, oldest first. */
  list(userUuid: string): Promise<CredentialSummary[]>;
  /** One of the holder's credentials that is not deleted, with its contents. */
  find(userUuid: string, id: string): Promise<StoredCredential | undefined>;
  /** Every credential of the holder that is not deleted, with contents (DCQL matching). */
  listWithContents(userUuid: string): Promise<StoredCredential[]>;
  /** Soft delete; false when the holder has no such credential (or it is already deleted). */
  softDelete(userUuid: string, id: string, at: Date): Promise<boolean>;
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

export interface OutboundResponse {
  status: number;
  headers: Headers;
  /** The body as text (bounded by OUTBOUND_MAX_RESPONSE_BYTES). */
  text: string;
  /** The final URL (after redirects). */
  url: string;
}

export interface OutboundRequest {
  method: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
}

/**
 * HTTP to parties the holder does not control (issuers, authorization servers, verifiers): a
 * deadline, a response size limit and a URL policy. Network failures throw OutboundHttpError.
 */
export interface OutboundHttp {
  request(url: string, request: OutboundRequest): Promise<OutboundResponse>;
  /** Whether the URL may be used at all (absolute http(s), https only when so configured). */
  checkUrl(url: string): string | undefined;
}
