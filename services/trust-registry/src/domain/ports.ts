import type { Ed25519PublicJwk } from "@attesto/protocol";

/** A credential type registered in the schema registry (only what provisioning needs). */
export interface RegisteredCredentialType {
  type: string;
  version: string;
  vct: string;
}

/** The schema registry, as this service sees it. Failures surface as AppErrors (503 when unreachable). */
export interface CredentialTypeCatalog {
  listActive(): Promise<RegisteredCredentialType[]>;
}

export interface AnchoredDid {
  did: string;
  /** DID URL of the verification method holding the key. */
  keyId: string;
  document: Record<string, unknown>;
}

export interface ResolvedDid {
  document: Record<string, unknown>;
  deactivated: boolean;
}

/** The ledger's DID registry. Failures surface as AppErrors (503 `Ledger is unavailable` when unreachable). */
export interface DidLedger {
  createDid(publicJwk: Ed25519PublicJwk): Promise<AnchoredDid>;
  /** undefined when the ledger does not know the DID. */
  resolveDid(did: string): Promise<ResolvedDid | undefined>;
  /** Best effort clean-up of a DID this service created but could not keep. */
  deactivateDid(did: string): Promise<void>;
}

/** argon2id in production (crypto/), injected so that the domain stays free of native modules. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

export type Clock = () => Date;

/**
 * Seals secrets at rest (the runtime's envelope sealer, `@attesto/runtime/crypto`): `context` binds
 * an envelope to the row it belongs to, so a sealed value copied elsewhere does not open.
 */
export interface SecretSealer {
  seal(plaintext: Uint8Array, context: string): string;
  open(envelope: string, context: string): Uint8Array;
}
