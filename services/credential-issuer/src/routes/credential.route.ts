import { zReferenceFields } from "@attesto/protocol";
import { isAppError } from "@attesto/runtime/errors";
import { type App, documentedOnly } from "@attesto/runtime/http";
import { z } from "zod";
import type { IssuerMetrics } from "../credential-issuer-metrics.js";
import { MAX_BATCH_SIZE } from "../domain/create-issuer-metadata.js";
import { issueCredentials } from "../domain/issue-credentials.js";
import type { IssuerDependencies } from "../domain/ports.js";
import {
  checkAccessTokenNotRevoked,
  readAccessToken,
  verifyAccessToken,
  verifyDpopBinding,
} from "./credential-access.js";
import { credentialRequestOf, zCredentialRequest } from "./credential-request.schema.js";

/** OID4VCI 1.0 §8.3 credential response; `reference` (Attesto) only with `is_on_chain`. */
const zCredentialResponse = z.object({
  credentials: z
    .array(
      z.object({
        credential: z.unknown().describe("The SD-JWT VC (or base64url mdoc IssuerSigned)"),
        reference: z
          .object({ chain: z.string(), object_id: z.string() })
          .extend(zReferenceFields.shape)
          .optional()
          .describe(
            "With is_on_chain: chain and object_id, state pending at issuance; the anchored reference is at GET /v1/credentials/{credentialId}",
          ),
        credential_id: z.string().optional(),
        offer_id: z.string().optional(),
      }),
    )
    .min(1)
    .max(MAX_BATCH_SIZE)
    .describe("One credential per key proof, at most batch_size (10)"),
  notification_id: z.string().optional(),
});

/** The body is checked by its schema after the access token (credentialRequestOf): its errors are OID4VCI's. */
const schema = {
  summary: "Issue credentials (OpenID4VCI credential endpoint; Bearer or DPoP access token)",
  body: zCredentialRequest,
  response: { 200: zCredentialResponse },
};

/**
 * POST /credential (OID4VCI 1.0 §8, this service's README), as an ordered list of steps:
 * 1. read the access token (Authorization: Bearer | DPoP)      -> 401 invalid_token
 * 2. verify it (signature, iss, exp, aud = tenant issuer id)   -> 401 invalid_token
 * 3. enforce its DPoP binding (proof, nonce dance)             -> 400 use_dpop_nonce, 400 invalid_dpop_proof
 * 4. not revoked (`revocable` tokens only: authorization server) -> 401 invalid_token, 503 AS unreachable
 * 5. check the body with its schema (identifiers, proofs, cap) -> 400 invalid_credential_request / invalid_proof
 * 6. issue: configuration covered by the token, key proofs, holder binding, single-use c_nonces,
 *    at most batch_size credentials per token and configuration over its lifetime,
 *    one SD-JWT VC per proof, optional notarization, credential records
 *                                                              -> 400 unknown_credential_configuration /
 *                                                                 invalid_proof / credential_request_denied,
 *                                                                 503 ledger unreachable
 */
export function registerCredentialRoute(app: App, deps: IssuerDependencies, metrics: IssuerMetrics): void {
  app.post(
    "/credential",
    {
      config: { errorShape: "oauth", answers: [401, 503] },
      schema,
      ...documentedOnly,
      onError: async (_request, _reply, error) => {
        metrics.credentialRequestsRefused.inc({ error: isAppError(error) ? error.code : "server_error" });
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      const presented = readAccessToken(request);
      const claims = await verifyAccessToken(deps, presented);
      await verifyDpopBinding(deps, request, reply, presented, claims);
      await checkAccessTokenNotRevoked(deps, presented, claims);
      const credentialRequest = credentialRequestOf(request.body);
      const { credentials, notificationId, signing } = await issueCredentials(deps, claims, credentialRequest);
      metrics.credentialsIssued.inc({ signing }, credentials.length);
      reply.header("date", deps.now().toUTCString());
      return { credentials, notification_id: notificationId };
    },
  );
}
