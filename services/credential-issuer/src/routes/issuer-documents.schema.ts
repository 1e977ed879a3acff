import { z } from "zod";
import { MAX_BATCH_SIZE } from "../domain/create-issuer-metadata.js";

/**
 * The documents the credential issuer answers to wallets and verifiers (OID4VCI 1.0, SD-JWT VC):
 * the response schemas of their routes, so the OpenAPI document shows them and the serializer
 * checks every answer against them. They list every member the domain's documents have (the
 * serializer keeps only the members a schema names).
 */

const zDisplay = z.object({
  name: z.string(),
  locale: z.string().optional(),
  description: z.string().optional(),
  background_color: z.string().optional(),
  text_color: z.string().optional(),
  logo: z.object({ uri: z.string(), alt_text: z.string().optional() }).optional(),
  background_image: z.object({ uri: z.string() }).optional(),
});

const zClaimDescription = z.object({
  path: z.array(z.union([z.string(), z.number(), z.null()])),
  mandatory: z.boolean().optional(),
  display: z.array(z.object({ name: z.string(), locale: z.string().optional() })).optional(),
});

const zCredentialConfiguration = z.object({
  format: z.enum(["dc+sd-jwt", "mso_mdoc"]),
  scope: z.string(),
  vct: z.string().optional().describe("dc+sd-jwt configurations"),
  doctype: z.string().optional().describe("mso_mdoc configurations (OID4VCI 1.0 A.2.2)"),
  credential_signing_alg_values_supported: z
    .array(z.union([z.string(), z.number()]))
    .describe("JWS names for dc+sd-jwt, COSE algorithm ids (-7 = ES256) for mso_mdoc"),
  cryptographic_binding_methods_supported: z.array(z.string()),
  proof_types_supported: z.object({ jwt: z.object({ proof_signing_alg_values_supported: z.array(z.string()) }) }),
  credential_metadata: z
    .object({ display: z.array(zDisplay).optional(), claims: z.array(zClaimDescription).optional() })

    .optional(),
  display: z.array(zDisplay).optional().describe("Draft-13 placement of display, kept for older wallets"),
});

/** OID4VCI 1.0 §12.2: Credential Issuer Metadata. */
export const zIssuerMetadata = z.object({
  credential_issuer: z.string(),
  authorization_servers: z.array(z.string()),
  credential_endpoint: z.string(),
  nonce_endpoint: z.string(),
  notification_endpoint: z.string(),
  batch_credential_issuance: z
    .object({ batch_size: z.number().int().min(2).max(MAX_BATCH_SIZE) })

    .describe("Most key proofs, so credentials, one credential request may carry"),
  display: z.array(z.object({ name: z.string(), locale: z.string() })),
  credential_configurations_supported: z.record(z.string(), zCredentialConfiguration),
});

/** OID4VCI 1.0 §4.1.1: the credential offer a wallet fetches from `credential_offer_uri`. */
export const zOfferDocument = z.object({
  credential_issuer: z.string(),
  credential_configuration_ids: z.array(z.string()).min(1),
  grants: z.object({
    "urn:ietf:params:oauth:grant-type:pre-authorized_code": z
      .object({ "pre-authorized_code": z.string() })

      .optional(),
    authorization_code: z.object({ issuer_state: z.string(), authorization_server: z.string() }).optional(),
  }),
  expires_at: z.string().describe("Attesto: when the offer expires (ISO 8601)"),
});

/** SD-JWT VC: JWT VC Issuer Metadata (the issuer identifier and its keys, inline). */
export const zJwtVcIssuerMetadata = z.object({
  issuer: z.string(),
  jwks: z.object({
    keys: z.array(
      z.object({
        kty: z.string(),
        crv: z.string().optional(),
        x: z.string().optional(),
        y: z.string().optional(),
        kid: z.string(),
        alg: z.string(),
        use: z.literal("sig"),
      }),
    ),
  }),
});
