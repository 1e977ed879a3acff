import { invalidFields } from "@attesto/runtime/errors";
import type { SessionSigner, VerifierDependencies } from "../ports.js";
import { isDcApiMode, type ResponseMode, type VerificationSession } from "../verification-session.js";
import { type DcApiRequest, signedDcApiRequestOf, unsignedDcApiRequestOf } from "./create-dc-api-request.js";

/**
 * The stored client_id of an unsigned DC API session: it has none (the wallet derives
 * `origin:<origin>` from the calling page, and the verifier the same from the response's origin).
 */
export const UNSIGNED_CLIENT_ID = "";

/**
 * The DC API fields of an authorization request: `expected_origins` (already parsed to origins by
 * the route) only with a `dc_api*` mode and required when the request is signed; no
 * `redirect_uri` (the answer returns to the calling page). Returns the expected origins.
 */
export function checkDcApiFields(
  input: { expectedOrigins: string[] | undefined; redirectUri: string | undefined },
  responseMode: ResponseMode,
  signed: boolean,
): string[] {
  if (!isDcApiMode(responseMode)) {
    if (input.expectedOrigins !== undefined) {
      throw invalidFields([{ field: "expected_origins", message: "is only for response_mode dc_api or dc_api.jwt" }]);
    }
    return [];
  }
  const errors = [
    ...(signed && (input.expectedOrigins ?? []).length === 0
      ? [{ field: "expected_origins", message: "is required for a signed dc_api request (the origins of your pages)" }]
      : []),
    ...(input.redirectUri !== undefined
      ? [
          {
            field: "redirect_uri",
            message: "must not be sent with a dc_api response mode (the answer returns to the page)",
          },
        ]
      : []),
  ];
  if (errors.length > 0) throw invalidFields(errors);
  return input.expectedOrigins ?? [];
}

/** Records the DC API side of a new session and builds the entry the page passes to `navigator.credentials.get`. */
export async function openDcApiSession(
  deps: Pick<VerifierDependencies, "dcApiSessions" | "verifierKeys">,
  session: VerificationSession,
  signer: SessionSigner | undefined,
  expectedOrigins: string[],
): Promise<DcApiRequest> {
  await deps.dcApiSessions.insert({ sessionId: session.id, expectedOrigins, signed: signer !== undefined });
  return signer ? signedDcApiRequestOf(deps, session, signer, expectedOrigins) : unsignedDcApiRequestOf(session);
}
