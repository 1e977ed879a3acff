import type { X509Certificate } from "@peculiar/x509";

/** A parsed X.509 certificate. */
export type Certificate = X509Certificate;

export interface VerifiedX5cChain {
  /** Public JWK of the leaf certificate: the issuer's signing key. */
  leafPublicJwk: Record<string, unknown>;
  leafSubject: string;
  /** base64url AuthorityKeyIdentifier keyIdentifiers of every certificate in the chain (DCQL `aki`). */
  authorityKeyIds: string[];
  /** The trust anchor the chain ends at. */
  anchorSubject: string;
  /** The leaf's subjectAltName entries: uniformResourceIdentifier and dNSName values. */
  leafSubjectAltNames: { uris: string[]; dnsNames: string[] };
}
