/** A credential request (OID4VCI 1.0 §8.2) as the domain takes it, once its body passed its schema. */
export interface CredentialRequest {
  credentialConfigurationId: string;
  /** Compact JWT key proofs: one credential is issued per proof. */
  proofJwts: string[];
  isOnChain: boolean;
}
