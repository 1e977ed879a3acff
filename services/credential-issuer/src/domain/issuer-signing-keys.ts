import type { PublicJwk, SignatureAlgorithm } from "@attesto/protocol";

/** A public key a tenant signs DID-path credentials with, named by the `kid` those credentials carry. */
export interface IssuerSigningKey {
  tenant: string;
  /** DID URL of the verification method: the `kid` header of the credentials it signs. */
  kid: string;
  did: string;
  publicJwk: PublicJwk;
  alg: SignatureAlgorithm;
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
