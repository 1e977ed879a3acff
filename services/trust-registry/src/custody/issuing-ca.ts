import type { webcrypto } from "node:crypto";
import type { x509 } from "./x509.js";

/** The CA that issues tenant signing certificates, with what a verifier needs to reach its anchor. */
export interface IssuingCa {
  certificate: x509.X509Certificate;
  /** WebCrypto P-256 private key of `certificate`. */
  signingKey: webcrypto.CryptoKey;
  /** Standard base64 DER: the issuing CA and any intermediates above it, trust anchor excluded. */
  chain: string[];
  /** Standard base64 DER of the trust anchor (root). */
  trustAnchor: string;
}

/** Where the issuing CA comes from: configuration (production) or generated once and stored (embedded). */
export interface IssuingCaSource {
  get(): Promise<IssuingCa>;
}
