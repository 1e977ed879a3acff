import { z } from "zod";
import { SIGNATURE_ALGORITHMS } from "../keys/signature-algorithms.js";

/** Request headers of attestation-based client authentication (draft-ietf-oauth-attestation-based-client-auth). */
export const CLIENT_ATTESTATION_HEADER = "OAuth-Client-Attestation";
export const CLIENT_ATTESTATION_POP_HEADER = "OAuth-Client-Attestation-PoP";
/** The token endpoint auth method name advertised in RFC 8414 metadata. */
export const ATTEST_JWT_CLIENT_AUTH = "attest_jwt_client_auth";

export const CLIENT_ATTESTATION_TYP = "oauth-client-attestation+jwt";
export const CLIENT_ATTESTATION_POP_TYP = "oauth-client-attestation-pop+jwt";

/** Signing algorithms accepted for attestations and their PoPs (advertised in the AS metadata). */
export const CLIENT_ATTESTATION_SIGNING_ALGS = SIGNATURE_ALGORITHMS;
export type ClientAttestationSigningAlg = (typeof CLIENT_ATTESTATION_SIGNING_ALGS)[number];

const algSchema = z.enum(CLIENT_ATTESTATION_SIGNING_ALGS, {
  error: `alg must be one of ${CLIENT_ATTESTATION_SIGNING_ALGS.join(", ")}`,
});

/** A public EC or OKP JWK, as a `cnf.jwk` or a header `jwk`; unknown members are kept. */
const attestationJwkShape = {
  kty: z.string({ error: "kty is required" }),
  crv: z.string().optional(),
  x: z.string().optional(),
  y: z.string().optional(),
  kid: z.string().optional(),
};
export const zAttestationJwk = z.object(attestationJwkShape, { error: "jwk must be a JSON Web Key object" }).loose();
export type AttestationJwk = z.infer<typeof zAttestationJwk>;

export const zClientAttestationJwtHeader = z
  .object({
    typ: z.literal(CLIENT_ATTESTATION_TYP, { error: `typ must be "${CLIENT_ATTESTATION_TYP}"` }),
    alg: algSchema,
    kid: z.string().optional(),
    jwk: zAttestationJwk.optional(),
    x5c: z.array(z.string()).optional(),
  })
  .loose();
export type ClientAttestationJwtHeader = z.infer<typeof zClientAttestationJwtHeader>;

/**
 * The attestation a wallet provider signs for one wallet instance. `sub` is the client_id, `cnf.jwk`
 * the instance key that signs the PoPs. `iss` (the provider) is optional: newer profiles drop it and
 * identify the provider by its certificate.
 */
export const zClientAttestationJwtPayload = z
  .object({
    iss: z.string({ error: "iss must be a string" }).optional(),
    sub: z.string({ error: "sub (the client_id) is required" }).min(1, "sub (the client_id) must not be empty"),
    exp: z.number({ error: "exp is required and must be a number" }),
    iat: z.number({ error: "iat must be a number" }).optional(),
    nbf: z.number({ error: "nbf must be a number" }).optional(),
    cnf: z
      .object(
        { jwk: z.object(attestationJwkShape, { error: "cnf.jwk is required" }).loose() },
        { error: "cnf.jwk is required" },
      )
      .loose(),
  })
  .loose();
export type ClientAttestationJwtPayload = z.infer<typeof zClientAttestationJwtPayload>;

export const zClientAttestationPopJwtHeader = z
  .object({
    typ: z.literal(CLIENT_ATTESTATION_POP_TYP, { error: `typ must be "${CLIENT_ATTESTATION_POP_TYP}"` }),
    alg: algSchema,
  })
  .loose();
export type ClientAttestationPopJwtHeader = z.infer<typeof zClientAttestationPopJwtHeader>;

/** Longest PoP `jti` we record. */
export const CLIENT_ATTESTATION_POP_JTI_MAX_LENGTH = 512;

/**
 * The PoP the wallet instance signs per request. `challenge` is accepted and ignored: this server
 * issues none, and common clients cannot send one. `iss` and `exp` are optional (later drafts
 * dropped them) but checked when present; freshness needs `iat` or `exp`.
 */
export const zClientAttestationPopJwtPayload = z
  .object({
    iss: z.string({ error: "iss must be a string" }).optional(),
    aud: z.union([z.string(), z.array(z.string())], { error: "aud is required" }),
    jti: z
      .string({ error: "jti is required and must be a string" })
      .min(1, "jti must not be empty")
      .max(
        CLIENT_ATTESTATION_POP_JTI_MAX_LENGTH,
        `jti must be at most ${CLIENT_ATTESTATION_POP_JTI_MAX_LENGTH} characters`,
      ),
    iat: z.number({ error: "iat must be a number" }).optional(),
    exp: z.number({ error: "exp must be a number" }).optional(),
    nonce: z.string().optional(),
    challenge: z.string().optional(),
  })
  .loose();
export type ClientAttestationPopJwtPayload = z.infer<typeof zClientAttestationPopJwtPayload>;
