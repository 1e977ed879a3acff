import { type App, apiTenantOf, requireApiKey } from "@attesto/runtime/http";
import { z } from "zod";
import { createAuthorizationRequest, ed25519SeedProblem } from "../domain/create-authorization-request.js";
import { DC_API_PROTOCOL_SIGNED, DC_API_PROTOCOL_UNSIGNED } from "../domain/dc-api/create-dc-api-request.js";
import { MAX_EXPECTED_ORIGINS, parseWebOrigin } from "../domain/dc-api/expected-origins.js";
import type { VerifierDependencies } from "../domain/ports.js";
import { MAX_SESSION_TTL_SECONDS, MIN_SESSION_TTL_SECONDS, RESPONSE_MODES } from "../domain/verification-session.js";
import { CLIENT_ID_PREFIXES } from "../domain/x509/client-id-prefix.js";
import { zDcqlQuery } from "./dcql-query.schema.js";

/** Schemes a same-device redirect may never use. */
const UNSAFE_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:"]);

const zUri = z.url({ error: "must be a URL" });

/** A required string: `missing` when absent, "must be a string" when of another type. */
const requiredString = (missing: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? missing : "must be a string") });

const zBody = z
  .object({
    dcql_query: zDcqlQuery,
    /** Required unless client_id_prefix is given (refused with it) or for an unsigned dc_api request (the use case names the fields). */
    verifier_private_key: requiredString("is required (base64url Ed25519 private key, 32 bytes)")
      .superRefine((value, context) => {
        const problem = ed25519SeedProblem(value);
        if (problem) context.addIssue({ code: "custom", message: problem });
      })
      .optional()
      .describe("base64url Ed25519 private key (32-byte seed); with verifier_client_id, unless client_id_prefix"),
    verifier_client_id: requiredString("is required (the verifier's DID or URL)")
      .trim()
      .min(1, "must not be empty")
      .max(2048, "must be at most 2048 characters")
      .regex(/^\S*$/, "must not contain whitespace")
      .optional(),
    client_id_prefix: z
      .enum(CLIENT_ID_PREFIXES, { error: `must be one of ${CLIENT_ID_PREFIXES.join(", ")}` })
      .optional()
      .describe(
        "x509_hash or x509_san_dns: the tenant's verifier certificate signs (ES256, x5c); not with verifier_private_key or verifier_client_id",
      ),
    response_mode: z
      .enum(RESPONSE_MODES, { error: `must be one of ${RESPONSE_MODES.join(", ")}` })
      .optional()
      .describe("direct_post (default), direct_post.jwt, or the Digital Credentials API's dc_api and dc_api.jwt"),
    expected_origins: z
      .array(
        z
          .string({ error: "must be web origins (https://host[:port])" })
          .max(2048, "must be at most 2048 characters")
          .transform((value, context) => {
            const origin = parseWebOrigin(value);
            if (origin === undefined) {
              context.addIssue({ code: "custom", message: "must be web origins (https://host[:port], no path)" });
              return z.NEVER;
            }
            return origin;
          }),
        { error: "must be an array of web origins" },
      )
      .min(1, "must not be empty")
      .max(MAX_EXPECTED_ORIGINS, `must hold at most ${MAX_EXPECTED_ORIGINS} origins`)
      .optional()
      .describe("dc_api and dc_api.jwt: the origins of the pages that call the wallet; required when signed"),
    client_metadata: z
      .object(
        {
          client_name: z.string().max(256, "must be at most 256 characters").optional(),
          logo_uri: zUri.optional(),
          policy_uri: zUri.optional(),
          tos_uri: zUri.optional(),
        },
        { error: "must be an object" },
      )
      .optional(),
    redirect_uri: zUri
      .max(2048, "must be at most 2048 characters")
      .refine((uri) => !URL.canParse(uri) || !UNSAFE_SCHEMES.has(new URL(uri).protocol), "must not use that URL scheme")
      .optional(),
    expires_in: z
      .number({ error: "must be an integer number of seconds" })
      .int("must be an integer number of seconds")
      .min(MIN_SESSION_TTL_SECONDS, `must be at least ${MIN_SESSION_TTL_SECONDS}`)
      .max(MAX_SESSION_TTL_SECONDS, `must be at most ${MAX_SESSION_TTL_SECONDS}`)
      .optional(),
  })
  .superRefine(
    (body, context) => {
      // Today's mode (no client_id_prefix, a redirect response mode) needs the caller's key and client id:
      // reported here with every other failing field at once (the use case checks the same again).
      // `when` runs this for any input, also one that is not an object (zod has already refused it).
      if (typeof body !== "object" || body === null) return;
      const unsignedDcApi = typeof body.response_mode === "string" && body.response_mode.startsWith("dc_api");
      if (body.client_id_prefix !== undefined || unsignedDcApi) return;
      if (body.verifier_private_key === undefined) {
        context.addIssue({
          code: "custom",
          path: ["verifier_private_key"],
          message: "is required (base64url Ed25519 private key, 32 bytes)",
        });
      }
      if (body.verifier_client_id === undefined) {
        context.addIssue({
          code: "custom",
          path: ["verifier_client_id"],
          message: "is required (the verifier's DID or URL)",
        });
      }
    },
    { when: () => true },
  );

const zDcApiRequest = z
  .object({
    protocol: z.enum([DC_API_PROTOCOL_SIGNED, DC_API_PROTOCOL_UNSIGNED]),
    data: z.record(z.string(), z.unknown()),
  })
  .describe("dc_api modes: the one entry of navigator.credentials.get({ digital: { requests: [ ... ] } })");

/** Redirect modes answer the link, its QR code and page; dc_api modes answer `dc_api_request` instead. */
const zCreated = z.object({
  session_id: z.string(),
  client_id: z
    .string()
    .optional()
    .describe(
      "client_id_prefix only: x509_hash:<base64url SHA-256 of the leaf> or x509_san_dns:<host>, as in the link, the request object and the KB-JWT audience",
    ),
  dc_api_request: zDcApiRequest.optional(),
  request_uri: z
    .string()
    .optional()
    .describe("Where the wallet fetches the signed request object (not for dc_api modes)"),
  authorization_request: z
    .string()
    .optional()
    .describe("openid4vp://?client_id=…&request_uri=… (not for dc_api modes)"),
  qr_code_url: z.string().optional().describe("SVG QR code of exactly `authorization_request` (public)"),
  page_url: z
    .string()
    .optional()
    .describe("Public page of the request: QR code, same-device button, live session status (no claim values)"),
  expires_at: z.string(),
});

/** POST /v1/verifier/authorization-request (API key of a verifier tenant): opens a verification session. */
export function registerCreateAuthorizationRequestRoute(app: App, deps: VerifierDependencies): void {
  app.post(
    "/v1/verifier/authorization-request",
    {
      // On request, before the body is parsed or validated: without a valid key nothing else is looked at.
      onRequest: requireApiKey(deps.apiKeys, "verifier"),
      schema: { body: zBody, response: { 201: zCreated } },
      config: { answers: [503] },
    },
    async (request, reply) => {
      const body = request.body;
      const created = await createAuthorizationRequest(deps, apiTenantOf(request).tenant, {
        dcqlQuery: body.dcql_query,
        verifierPrivateKey: body.verifier_private_key,
        verifierClientId: body.verifier_client_id,
        clientIdPrefix: body.client_id_prefix,
        expectedOrigins: body.expected_origins,
        responseMode: body.response_mode,
        clientMetadata: body.client_metadata,
        redirectUri: body.redirect_uri,
        expiresInSeconds: body.expires_in,
      });
      return reply.code(201).header("cache-control", "no-store").send(created);
    },
  );
}
