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
