import { describeFieldErrors, type FieldError, InvalidCredentialRequest, InvalidProof } from "@attesto/runtime/errors";
import { type FieldIssue, parseFields } from "@attesto/runtime/http";
import { z } from "zod";
import { MAX_BATCH_SIZE } from "../domain/create-issuer-metadata.js";
import type { CredentialRequest } from "../domain/credential-request.js";

/**
 * The body of POST /credential (OID4VCI 1.0 §8.2): one schema for the check, the type and the
 * OpenAPI document. The rules between members are refinements; each failing field carries the
 * OID4VCI error code it calls for (`credentialRequestOf`).
 */

type Code = "invalid_credential_request" | "invalid_proof";

const JWTS = "must be a non-empty array of JWT strings";
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const EXAMPLE_PROOF =
  "eyJhbGciOiJFZERTQSIsInR5cCI6Im9wZW5pZDR2Y2ktcHJvb2Yrand0IiwiandrIjp7Imt0eSI6Ik9LUCJ9fQ.eyJhdWQiOiJodHRwczovL2lzc3Vlci5leGFtcGxlL2FjbWUiLCJub25jZSI6IndLSTRMVDE3YWMxNUpDM0EifQ.c2lnbmF0dXJl";

export const zCredentialRequest = z
  .object({
    credential_configuration_id: z
      .string()
      .min(1)
      .describe("A key of the issuer metadata's credential_configurations_supported"),
    credential_identifier: z
      .string()
      .optional()
      .describe("Not yet supported; must not be given with credential_configuration_id"),
    proofs: z
      .object(
        {
          jwt: z
            .array(z.string({ error: JWTS }).min(1, { error: JWTS }), { error: JWTS })
            .min(1, { error: JWTS })
            .max(MAX_BATCH_SIZE, { error: `must have at most ${MAX_BATCH_SIZE} proofs in one request (batch_size)` })
            .describe(
              `Key proof JWTs (typ openid4vci-proof+jwt), one per credential; at most batch_size (${MAX_BATCH_SIZE})`,
            ),
        },
        { error: "must be a JSON object" },
      )
      .loose()
      .optional()
      .describe("Required unless proof is given; jwt is the only proof type"),
    proof: z
      .object(
        {
          proof_type: z.literal("jwt", { error: "must be jwt (the only proof type supported)" }),
          jwt: z.string({ error: "must be a JWT string" }).min(1, { error: "must be a JWT string" }),
        },
        { error: "must be a JSON object" },
      )
      .loose()
      .optional()
      .describe("Draft form of a single key proof; send proofs instead (never both)"),
    is_on_chain: z.boolean().optional().describe("Notarize the credential on the ledger (default false)"),
  })
  .loose()
  .superRefine(
    (body, ctx) => {
      const request = (path: string, message: string) =>
        ctx.addIssue({ code: "custom", path: [path], message, params: { code: "invalid_credential_request" } });
      const proof = (path: string, message: string) =>
        ctx.addIssue({ code: "custom", path: [path], message, params: { code: "invalid_proof" } });
      if (body.credential_identifier !== undefined) {
        request(
          "credential_identifier",
          body.credential_configuration_id === undefined
            ? "is not yet supported; use credential_configuration_id"
            : "must not be given with credential_configuration_id",
        );
      }
      if (body.proofs !== undefined && body.proof !== undefined) request("proof", "must not be given with proofs");
      if (body.proofs === undefined && body.proof === undefined) {
        proof("proofs", "is required: credentials are bound to the holder's key");
      }
      // The unsupported type's name is the client's input: never echoed.
      if (isObject(body.proofs) && Object.keys(body.proofs).some((type) => type !== "jwt")) {
        proof("proofs", "names a proof type that is not supported; use jwt");
      }
    },
    // Also when a member failed its own rule: every failing field in one answer.
    { when: (payload) => isObject(payload.value) },
  )
  .meta({
    examples: [{ credential_configuration_id: "employee-badge", proofs: { jwt: [EXAMPLE_PROOF] } }],
  });

/** The answer's fields in this order (identifiers before proofs: OID4VCI 1.0 §8.3.1.2), one failure each. */
const GROUP_OF: Record<string, number> = {
  body: 0,
  credential_configuration_id: 0,
  credential_identifier: 0,
  is_on_chain: 1,
  proof: 2,
  proofs: 2,
};

const groupOf = (issue: FieldIssue) => GROUP_OF[String(issue.issue.path[0] ?? "body")] ?? 3;

function codeOf({ issue }: FieldIssue): Code {
  const given = (issue as { params?: { code?: Code } }).params?.code;
  if (given) return given;
  if (issue.code === "too_big") return "invalid_credential_request"; // the batch cap
  return issue.path[0] === "proof" || issue.path[0] === "proofs" ? "invalid_proof" : "invalid_credential_request";
}

/**
 * The request's failures, one per group of members (a refinement's words before a member's own),
 * groups in answer order.
 */
function failuresOf(issues: readonly FieldIssue[]): FieldIssue[] {
  const byGroup = new Map<number, FieldIssue>();
  for (const issue of issues) {
    const group = groupOf(issue);
    const kept = byGroup.get(group);
    if (!kept || (kept.issue.code !== "custom" && issue.issue.code === "custom")) byGroup.set(group, issue);
  }
  return [...byGroup].sort(([a], [b]) => a - b).map(([, issue]) => issue);
}

/**
 * The body checked by its schema after the access token (its errors are OID4VCI's): the request,
 * or 400 naming every failing field with the code of the first (`invalid_credential_request` or
 * `invalid_proof`).
 */
export function credentialRequestOf(body: unknown): CredentialRequest {
  const parsed = parseFields(zCredentialRequest, body);
  if (!parsed.success) {
    const failures = failuresOf(parsed.issues);
    const fieldErrors: FieldError[] = failures.map(({ field, message }) => ({ field, message }));
    const ErrorClass = failures[0] && codeOf(failures[0]) === "invalid_proof" ? InvalidProof : InvalidCredentialRequest;
    throw new ErrorClass(describeFieldErrors(fieldErrors), { fieldErrors });
  }
  const { data } = parsed;
  return {
    credentialConfigurationId: data.credential_configuration_id,
    proofJwts: data.proof ? [data.proof.jwt] : (data.proofs?.jwt ?? []),
    isOnChain: data.is_on_chain === true,
  };
}
