/**
 * Key custody: private keys held encrypted at rest (AES-256-GCM envelopes under a key-encryption
 * key), used for signing without ever leaving the service. Every key belongs to one tenant; asking
 * for another tenant's key is "not found".
 *
 * This file is the contract between the trust registry's routes/RPC and the custody implementation.
 */
export type KeyAlgorithm = "EdDSA" | "ES256";

export interface PublicJwk {
  kty: string;
  crv: string;
  x: string;
  y?: string;
  [member: string]: unknown;
}

export interface HeldKey {
  keyId: string;
  tenant: string;
  alg: KeyAlgorithm;
  publicJwk: PublicJwk;
  createdAt: Date;
  /**
   * Present (from describeKey) when the key is the tenant's current X.509 signing key: standard
   * base64 DER certificates, leaf first, trust anchor excluded.
   */
  x5c?: string[];
}

export interface SigningCertificate extends HeldKey {
  /** Standard base64 DER certificates, leaf first, trust anchor excluded. */
  x5c: string[];
  /** Root CA certificate, standard base64 DER. */
  trustAnchor: string;
}

/** What ImportSigningCertificate held (or already held). */
export interface ImportedSigningCertificate extends SigningCertificate {
  /** SHA-256 of the leaf's DER, lowercase hex. */
  fingerprint: string;
  notAfter: Date;
  /** False when this chain was already the tenant's imported certificate. */
  changed: boolean;
}

/** Which verifier certificate: issued by the platform CA for the verifier's host, or imported by the operator. */
export type VerifierCertificateSource = "platform" | "imported";

export interface VerifierCertificate extends SigningCertificate {
  source: VerifierCertificateSource;
}

export interface KeyCustody {
  generateKey(tenant: string, alg: KeyAlgorithm): Promise<HeldKey>;
  /** Takes custody of a private JWK (Ed25519 `OKP` or P-256 `EC` with `d`). */
  importKey(tenant: string, alg: KeyAlgorithm, privateJwk: Record<string, unknown>): Promise<HeldKey>;
  /** Raw JWS signature over `signingInput` (for EdDSA the Ed25519 signature, for ES256 r||s). */
  sign(tenant: string, keyId: string, signingInput: Uint8Array): Promise<{ signature: Uint8Array; alg: KeyAlgorithm }>;
  describeKey(tenant: string, keyId: string): Promise<HeldKey>;
  /**
   * The tenant's X.509 signing key and chain: the imported one when present (refused once expired),
   * else the platform's, issued by the platform CA on first use.
   */
  signingCertificate(tenant: string): Promise<SigningCertificate>;
  /** Takes custody of the tenant's own chain (DER, leaf first) and P-256 key (PKCS#8 or SEC1 PEM). */
  importSigningCertificate(
    tenant: string,
    chainDer: readonly Uint8Array[],
    privateKeyPem: string,
  ): Promise<ImportedSigningCertificate>;
  /** Drops the tenant's imported certificate (back to the platform's); whether there was one. */
  clearSigningCertificate(tenant: string): Promise<boolean>;
  /**
   * The tenant's verifier identity (P-256 key and chain for a request object's `x5c`): `platform`
   * issued by the platform CA with a dNSName (or iPAddress) SAN = `host`, reissued near expiry, when
   * the CA changed or when `host` changes; `imported` the chain the operator imported (refused,
   * 410, when there is none or it has expired).
   */
  verifierCertificate(tenant: string, source: VerifierCertificateSource, host: string): Promise<VerifierCertificate>;
  /** Takes custody of the tenant's own verifier chain (DER, leaf first) and P-256 key; no issuer name is required. */
  importVerifierCertificate(
    tenant: string,
    chainDer: readonly Uint8Array[],
    privateKeyPem: string,
  ): Promise<ImportedSigningCertificate>;
  /** Drops the tenant's imported verifier certificate; whether there was one. */
  clearVerifierCertificate(tenant: string): Promise<boolean>;
  /** The trust anchors (root CA certificates, standard base64 DER) of tenant signing certificates. */
  trustAnchors(): Promise<string[]>;
  /** The self-signed roots (standard base64 DER) of the chains tenants imported, by tenant (read-only). */
  importedTrustAnchors(): Promise<{ tenant: string; trustAnchor: string }[]>;
  /** Re-encrypts every key under the current KEK; returns how many were rewrapped. */
  rewrapKeys(): Promise<number>;
}
