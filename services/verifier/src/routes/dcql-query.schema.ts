import { DcqlQueryError, parseDcqlQuery, SUPPORTED_CREDENTIAL_FORMATS } from "@attesto/protocol";
import { z } from "zod";

/**
 * The DCQL query (OID4VP 1.0 §6) of an authorization request: its shape, which the OpenAPI
 * document shows, refined by the DCQL rules of `parseDcqlQuery` (unique ids, claim_sets naming
 * claims, mdoc paths, `credential_sets` options naming queries, the reference parser), so a bad
 * query is reported with every other failing field of the request in one answer.
 */
const zClaimsQuery = z
  .object({
    id: z.string().optional(),
    path: z
      .array(
        z.union([z.string(), z.number().int().min(0), z.null()], {
          error: "must be a string, a non-negative integer or null",
        }),
      )
      .min(1)
      .describe("Claims path pointer; `[namespace, element]` for mso_mdoc"),
    values: z
      .array(z.union([z.string(), z.number(), z.boolean()], { error: "must be a string, a number or a boolean" }))
      .min(1)
      .optional(),
    intent_to_retain: z.boolean().optional().describe("mso_mdoc only"),
  })
  .loose();

const zCredentialQuery = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_-]+$/),
    format: z.enum(SUPPORTED_CREDENTIAL_FORMATS),
    meta: z
      .object({
        vct_values: z.array(z.string()).optional().describe("dc+sd-jwt: the accepted vct values"),
        doctype_value: z.string().optional().describe("mso_mdoc (required): the document type"),
      })
      .loose(),
    claims: z.array(zClaimsQuery).min(1).optional(),
    claim_sets: z.array(z.array(z.string())).min(1).optional(),
    multiple: z.boolean().optional(),
    require_cryptographic_holder_binding: z.boolean().optional(),
    trusted_authorities: z
      .array(z.object({ type: z.string(), values: z.array(z.string()).min(1) }).loose())
      .min(1)
      .optional()
      .describe("`did` (issuer DIDs) and `aki` (x5c AuthorityKeyIdentifiers) are evaluated"),
  })
  .loose();

/** The member path of a DCQL rule's failure, relative to `dcql_query` (`credentials.0.id`). */
function pathOf(error: DcqlQueryError): Array<string | number> {
  const field = error.fieldError.field;
  const relative = field === "dcql_query" ? "" : field.replace(/^dcql_query\./, "");
  return relative === "" ? [] : relative.split(".").map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

export const zDcqlQuery = z
  .object({
    credentials: z.array(zCredentialQuery).min(1),
    credential_sets: z
      .array(
        z.object({ options: z.array(z.array(z.string()).min(1)).min(1), required: z.boolean().optional() }).loose(),
      )
      .min(1)
      .optional(),
  })
  .loose()
  .superRefine(
    (query, context) => {
      try {
        parseDcqlQuery(query);
      } catch (error) {
        if (!(error instanceof DcqlQueryError)) throw error;
        context.addIssue({ code: "custom", path: pathOf(error), message: error.fieldError.message });
      }
      // The DCQL rules run on a query of the right shape only: a shape problem is named once.
    },
    { when: (payload) => payload.issues.length === 0 },
  )
  .describe("DCQL query (OpenID4VP 1.0 §6)");
