import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { createTenantDid } from "../domain/create-did.js";
import type { TrustRegistryDependencies } from "../domain/ports.js";
import { DID_METHOD } from "../domain/tenant-did.js";
import { principalOf } from "./login-token-auth.js";

/**
 * Empty (no body, an empty body of any content type, null) or `{}`; a `method`, when given, must be
 * the only one supported.
 */
const zCreateDidBody = z.preprocess(
  (body) => (body === undefined || body === null || body === "" ? {} : body),
  z.object({
    method: z
      .string({ error: "method must be a string" })
      .refine((method) => method.toUpperCase() === DID_METHOD, { message: `method must be ${DID_METHOD}` })
      .optional(),
  }),
);

/** The organization DID (trust registry README, "POST /v1/did"). */
const zCreatedDid = z.object({
  did: z.string(),
  key_id: z.string(),
  public_key_jwk: z.object({
    kty: z.literal("OKP"),
    use: z.literal("sig"),
    key_ops: z.tuple([z.literal("sign"), z.literal("verify")]),
    alg: z.literal("EdDSA"),
    kid: z.string(),
    crv: z.literal("Ed25519"),
    x: z.string(),
  }),
  private_key: z.string(),
});

/** POST /v1/did (login token): a new did:ledger DID whose key the platform keeps in custody. */
export function registerCreateDidRoute(scope: App, domain: TrustRegistryDependencies): void {
  scope.post(
    "/v1/did",
    { schema: { body: zCreateDidBody, response: { 201: zCreatedDid } } },
    async (request, reply) => {
      const created = await createTenantDid(domain, principalOf(request));
      reply.code(201).header("cache-control", "no-store");
      return {
        did: created.did,
        key_id: created.keyId,
        public_key_jwk: {
          kty: "OKP" as const,
          use: "sig" as const,
          key_ops: ["sign", "verify"] as ["sign", "verify"],
          alg: "EdDSA" as const,
          kid: created.keyId,
          crv: "Ed25519" as const,
          x: created.x,
        },
        private_key: created.privateKey,
      };
    },
  );
}
