import type { X509Certificate } from "node:crypto";
import { decodeSecretValue } from "../kube/kube-client.js";
import { blockedError, retryableError } from "./reconcile-error.js";
import type { ReconcileDeps } from "./reconciler.js";
import { fingerprintOf, parsePemCertificates } from "./x509.js";

/** A certificate chain and its leaf's key, read from a kubernetes.io/tls Secret (`tls.crt`, `tls.key`). */
export interface TlsSecret {
  secretName: string;
  /** DER certificates as in `tls.crt`, leaf first. */
  chainDer: Uint8Array[];
  privateKeyPem: string;
  leaf: X509Certificate;
}

/** The leaf is valid now: its SHA-256 fingerprint (hex) and notAfter; else blocked (`what` names the certificate). */
export function assertUnexpired(leaf: X509Certificate, now: Date, what: string) {
  const notAfter = new Date(leaf.validTo);
  if (notAfter.getTime() <= now.getTime()) {
    throw blockedError("CertificateExpired", `the ${what} expired at ${notAfter.toISOString()}`);
  }
  return { fingerprint: fingerprintOf(leaf), notAfter: notAfter.toISOString() };
}

/**
 * Reads the Secret's chain and key (retryable while the Secret or a key is missing, blocked when
 * `tls.crt` is not PEM certificates or the leaf has expired); key custody checks the rest at import.
 */
export async function readTlsSecret(
  deps: ReconcileDeps,
  namespace: string,
  secretName: string,
  what: string,
): Promise<TlsSecret> {
  const secret = await deps.kube.getSecret(namespace, secretName);
  const chainPem = decodeSecretValue(secret, "tls.crt");
  const privateKeyPem = decodeSecretValue(secret, "tls.key");
  if (!chainPem || !privateKeyPem) {
    throw retryableError("CertificateSecretNotFound", `Secret ${secretName} needs tls.crt and tls.key`);
  }
  let chain: X509Certificate[];
  try {
    chain = parsePemCertificates(chainPem);
  } catch {
    throw blockedError("InvalidCertificate", `Secret ${secretName}/tls.crt is not a PEM certificate chain`);
  }
  const leaf = chain[0] as X509Certificate;
  assertUnexpired(leaf, deps.now(), what);
  return { secretName, chainDer: chain.map((c) => new Uint8Array(c.raw)), privateKeyPem, leaf };
}
