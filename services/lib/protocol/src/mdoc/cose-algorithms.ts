/**
 * COSE algorithm identifiers (IANA "COSE Algorithms") of the JWS algorithms the platform signs with.
 * OID4VCI 1.0 Appendix A.2 advertises `credential_signing_alg_values_supported` for `mso_mdoc` as
 * these numbers.
 */
export const COSE_ALGORITHMS = { ES256: -7, ES384: -35, ES512: -36, EdDSA: -8 } as const;

export type CoseSignatureAlgorithmName = keyof typeof COSE_ALGORITHMS;

/** The COSE algorithm id of a JWS algorithm name, or undefined when COSE has none we sign with. */
export function coseAlgorithmOf(alg: string): number | undefined {
  return Object.hasOwn(COSE_ALGORITHMS, alg) ? COSE_ALGORITHMS[alg as CoseSignatureAlgorithmName] : undefined;
}

/** The JWS algorithm name of a COSE algorithm id, or undefined when it is not one of ours. */
export function jwsAlgorithmOfCose(id: number): CoseSignatureAlgorithmName | undefined {
  const entry = Object.entries(COSE_ALGORITHMS).find(([, value]) => value === id);
  return entry?.[0] as CoseSignatureAlgorithmName | undefined;
}

/** The node:crypto digest of a signature algorithm (null for EdDSA, which hashes internally). */
export function digestOfSignatureAlgorithm(alg: CoseSignatureAlgorithmName): string | null {
  if (alg === "EdDSA") return null;
  return alg === "ES256" ? "sha256" : alg === "ES384" ? "sha384" : "sha512";
}
