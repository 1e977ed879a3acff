import { z } from "zod";
import { SIGNATURE_ALGORITHMS } from "../keys/signature-algorithms.js";

/** DPoP proof signing algorithms we accept (and advertise as dpop_signing_alg_values_supported). */
export const DPOP_SIGNING_ALGS = SIGNATURE_ALGORITHMS;
export type DpopSigningAlg = (typeof DPOP_SIGNING_ALGS)[number];

export const DPOP_PROOF_TYP = "dpop+jwt";

/** Private members of a JWK: a proof key carrying any of them is refused. */
export const PRIVATE_JWK_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] as const;

export const zDpopJwk = z
  .object(
    {
      kty: z.string({ error: "jwk.kty is required" }),
      crv: z.string({ error: "jwk.crv must be a string" }).optional(),
      x: z.string({ error: "jwk.x must be a string" }).optional(),
      y: z.string({ error: "jwk.y must be a string" }).optional(),
    },
    { error: "jwk must be a JSON Web Key object" },
  )
  .loose();
export type DpopJwk = z.infer<typeof zDpopJwk>;

export const zDpopJwtHeader = z
  .object({
    typ: z.literal(DPOP_PROOF_TYP, { error: `typ must be "${DPOP_PROOF_TYP}"` }),
    alg: z.enum(DPOP_SIGNING_ALGS, { error: `alg must be one of ${DPOP_SIGNING_ALGS.join(", ")}` }),
    jwk: zDpopJwk.optional(),
  })
  .loose();
export type DpopJwtHeader = z.infer<typeof zDpopJwtHeader>;

/** Longest `jti` we record; real wallets send UUIDs or 22–43 character random strings. */
export const DPOP_JTI_MAX_LENGTH = 512;

export const zDpopJwtPayload = z
  .object({
    jti: z
      .string({ error: "jti is required and must be a string" })
      .min(1, "jti must not be empty")
      .max(DPOP_JTI_MAX_LENGTH, `jti must be at most ${DPOP_JTI_MAX_LENGTH} characters`),
    htm: z.string({ error: "htm is required and must be a string" }),
    htu: z.string({ error: "htu is required and must be a string" }),
    iat: z.number({ error: "iat is required and must be a number" }),
    ath: z.string({ error: "ath must be a string" }).optional(),
    nonce: z.string({ error: "nonce must be a string" }).optional(),
  })
  .loose();
export type DpopJwtPayload = z.infer<typeof zDpopJwtPayload>;
