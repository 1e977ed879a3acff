import { describeFieldErrors, InvalidRequest, UnsupportedGrantType } from "@attesto/runtime/errors";
import { parseFields } from "@attesto/runtime/http";
import { z } from "zod";
import {
  AUTHORIZATION_CODE_GRANT_TYPE,
  PRE_AUTHORIZED_CODE_GRANT_TYPE,
} from "../domain/create-authorization-server-metadata.js";
import type { GrantRequest } from "../domain/token/grant-request.js";
import { optional, present, required } from "./oauth-form-endpoint.js";

/**
 * The form body of POST /v1/token (RFC 6749 §4.1.3, OpenID4VCI 1.0 §6.1): one schema for the check,
 * the type and the OpenAPI document. The parameters each grant type requires are a refinement; an
 * unknown grant type is `unsupported_grant_type`, every other failure one 400 `invalid_request`
 * naming every failing parameter (`grantRequestOf`).
 */

const UNSUPPORTED = `is not supported; use ${PRE_AUTHORIZED_CODE_GRANT_TYPE} or ${AUTHORIZATION_CODE_GRANT_TYPE}`;

/** The parameters each grant type requires. */
const REQUIRED_BY_GRANT: Record<string, readonly string[]> = {
  [PRE_AUTHORIZED_CODE_GRANT_TYPE]: ["pre-authorized_code"],
  [AUTHORIZATION_CODE_GRANT_TYPE]: ["code", "redirect_uri", "client_id"],
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const zTokenRequest = z
  .object({
    grant_type: required(`${PRE_AUTHORIZED_CODE_GRANT_TYPE} or ${AUTHORIZATION_CODE_GRANT_TYPE}`, (value) =>
      Object.hasOwn(REQUIRED_BY_GRANT, value) ? undefined : UNSUPPORTED,
    ),
    "pre-authorized_code": optional("Pre-authorized code grant (required): the code from the credential offer"),
    tx_code: optional("Pre-authorized code grant: the transaction code, when the offer asks for one"),
    user_pin: optional("Pre-authorized code grant: tx_code as wallets before OpenID4VCI 1.0 send it"),
    code: optional("Authorization code grant (required): the code from the authorization response"),
    code_verifier: optional("Authorization code grant: the PKCE verifier"),
    redirect_uri: optional("Authorization code grant (required): the redirect_uri of the pushed request"),
    client_id: optional("Authorization code grant (required): the client of the pushed request"),
  })
  .loose()
  .superRefine(
    (body, context) => {
      const grantType = body.grant_type;
      if (typeof grantType !== "string" || !Object.hasOwn(REQUIRED_BY_GRANT, grantType)) return;
      for (const name of REQUIRED_BY_GRANT[grantType] ?? []) {
        const value = (body as Record<string, unknown>)[name];
        if (value === undefined || value === "")
          context.addIssue({ code: "custom", path: [name], message: "is required" });
      }
    },
    // Also when another parameter failed its own rule: every failing parameter in one answer.
    { when: (payload) => isObject(payload.value) },
  )
  .meta({
    examples: [
      { grant_type: PRE_AUTHORIZED_CODE_GRANT_TYPE, "pre-authorized_code": "SplxlOBeZQQYbYS6WxSbIA" },
      {
        grant_type: AUTHORIZATION_CODE_GRANT_TYPE,
        code: "SplxlOBeZQQYbYS6WxSbIA",
        code_verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        redirect_uri: "https://wallet.example/callback",
        client_id: "https://wallet.example",
      },
    ],
  });

/**
 * Step 1 of POST /v1/token: the form body checked by its schema (after the body's media type):
 * the grant request, `unsupported_grant_type` for an unknown grant type, else 400 `invalid_request`
 * naming every failing parameter.
 */
export function grantRequestOf(body: unknown): GrantRequest {
  const parsed = parseFields(zTokenRequest, body ?? {});
  if (!parsed.success) {
    if (parsed.issues.some(({ field, message }) => field === "grant_type" && message === UNSUPPORTED)) {
      throw new UnsupportedGrantType(`grant_type ${UNSUPPORTED}`);
    }
    const fieldErrors = parsed.issues.map(({ field, message }) => ({ field, message }));
    throw new InvalidRequest(describeFieldErrors(fieldErrors), { fieldErrors });
  }
  const { data } = parsed;
  if (data.grant_type === PRE_AUTHORIZED_CODE_GRANT_TYPE) {
    return {
      grantType: PRE_AUTHORIZED_CODE_GRANT_TYPE,
      preAuthorizedCode: data["pre-authorized_code"] as string,
      txCode: present(data.tx_code) ?? present(data.user_pin),
    };
  }
  return {
    grantType: AUTHORIZATION_CODE_GRANT_TYPE,
    code: data.code as string,
    redirectUri: data.redirect_uri as string,
    clientId: data.client_id as string,
    codeVerifier: present(data.code_verifier),
  };
}
