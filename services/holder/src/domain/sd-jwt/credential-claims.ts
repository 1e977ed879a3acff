/** Claims that describe an SD-JWT VC rather than its subject; not shown among its claims. */
export const CREDENTIAL_METADATA_CLAIMS = [
  "iss",
  "iat",
  "nbf",
  "exp",
  "vct",
  "vct#integrity",
  "cnf",
  "status",
  "_sd_alg",
];

/** The subject claims of a processed SD-JWT VC payload. */
export function subjectClaimsOf(payload: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(payload).filter(([name]) => !CREDENTIAL_METADATA_CLAIMS.includes(name)));
}
