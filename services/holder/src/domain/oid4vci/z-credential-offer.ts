import { z } from "zod";

export const PRE_AUTHORIZED_CODE_GRANT = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

const zTxCode = z
  .object({
    input_mode: z.string().optional(),
    length: z.number().int().positive().optional(),
    description: z.string().optional(),
  })
  .loose();

/** OID4VCI 1.0 §4.1.1 Credential Offer; unknown members are kept and ignored. */
export const zCredentialOffer = z
  .object({
    credential_issuer: z.string().min(1, "credential_issuer is required"),
    credential_configuration_ids: z
      .array(z.string().min(1), "credential_configuration_ids must be an array of strings")
      .min(1, "credential_configuration_ids must not be empty"),
    grants: z
      .object({
        [PRE_AUTHORIZED_CODE_GRANT]: z
          .object({
            "pre-authorized_code": z.string().min(1, "pre-authorized_code is required"),
            tx_code: zTxCode.optional(),
            authorization_server: z.string().optional(),
          })
          .loose()
          .optional(),
        authorization_code: z
          .object({ issuer_state: z.string().optional(), authorization_server: z.string().optional() })
          .loose()
          .optional(),
      })
      .loose()
      .optional(),
    /** Attesto's offers say when they expire; others may not. */
    expires_at: z.string().optional(),
  })
  .loose();

export type CredentialOfferDocument = z.infer<typeof zCredentialOffer>;

const zDisplay = z
  .object({
    name: z.string().optional(),
    locale: z.string().optional(),
    logo: z.object({ uri: z.string().optional() }).loose().optional(),
  })
  .loose();

export type DisplayEntry = z.infer<typeof zDisplay>;

export const zCredentialConfiguration = z
  .object({
    format: z.string().min(1, "format is required"),
    vct: z.string().optional(),
    /** mso_mdoc configurations (OID4VCI 1.0 A.2.2). */
    doctype: z.string().optional(),
    scope: z.string().optional(),
    cryptographic_binding_methods_supported: z.array(z.string()).optional(),
    credential_signing_alg_values_supported: z.array(z.unknown()).optional(),
    proof_types_supported: z
      .record(z.string(), z.object({ proof_signing_alg_values_supported: z.array(z.string()).optional() }).loose())
      .optional(),
    credential_metadata: z
      .object({ display: z.array(zDisplay).optional() })
      .loose()
      .optional(),
    display: z.array(zDisplay).optional(),
  })
  .loose();

export type CredentialConfigurationMetadata = z.infer<typeof zCredentialConfiguration>;

/** OID4VCI 1.0 §12.2.4 Credential Issuer Metadata, the members a wallet uses. */
export const zCredentialIssuerMetadata = z
  .object({
    credential_issuer: z.string().min(1, "credential_issuer is required"),
    authorization_servers: z.array(z.string()).optional(),
    credential_endpoint: z.string().min(1, "credential_endpoint is required"),
    nonce_endpoint: z.string().optional(),
    notification_endpoint: z.string().optional(),
    display: z.array(zDisplay).optional(),
    credential_configurations_supported: z.record(z.string(), z.unknown()),
  })
  .loose();

export type CredentialIssuerMetadata = z.infer<typeof zCredentialIssuerMetadata>;

/** What one issuance asks for: the credential issuer, its metadata and the chosen configuration. */
export interface IssuanceTarget {
  credentialIssuer: string;
  metadata: CredentialIssuerMetadata;
  configurationId: string;
  configuration: CredentialConfigurationMetadata;
}

/** RFC 8414 Authorization Server Metadata, the members a wallet uses. */
export const zAuthorizationServerMetadata = z
  .object({
    issuer: z.string().min(1, "issuer is required"),
    token_endpoint: z.string().min(1, "token_endpoint is required"),
    authorization_endpoint: z.string().optional(),
    pushed_authorization_request_endpoint: z.string().optional(),
    code_challenge_methods_supported: z.array(z.string()).optional(),
    authorization_response_iss_parameter_supported: z.boolean().optional(),
    dpop_signing_alg_values_supported: z.array(z.string()).optional(),
    grant_types_supported: z.array(z.string()).optional(),
  })
  .loose();

export type AuthorizationServerMetadata = z.infer<typeof zAuthorizationServerMetadata>;

/** The first problem of a zod failure, for a message. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "is malformed";
  const path = issue.path.join(".");
  return path && !issue.message.startsWith(path) ? `${path}: ${issue.message}` : issue.message;
}
