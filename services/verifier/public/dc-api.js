/**
 * dc-api.js: present credentials to an Attesto verifier through the browser's Digital Credentials
 * API (OpenID4VP 1.0 Appendix A). Dependency-free ES module, served by the verifier at
 * /v1/verifier/dc-api.js.
 *
 *   const { isDigitalCredentialsSupported, presentWithDigitalCredentials } = await import(`${verifierUrl}/v1/verifier/dc-api.js`);
 *   // created = the answer of POST /v1/verifier/authorization-request with response_mode dc_api or dc_api.jwt
 *   //           (made by your backend, with your API key)
 *   await presentWithDigitalCredentials({ verifierUrl, sessionId: created.session_id, request: created.dc_api_request });
 *   // then your backend polls GET /v1/verifier/result/:sessionId as usual.
 */

/** Whether this browser exposes the Digital Credentials API (navigator.credentials.get with `digital`). */
export function isDigitalCredentialsSupported() {
  return typeof window !== "undefined" && typeof window.DigitalCredential !== "undefined" && !!navigator.credentials;
}

/** Thrown with a stable `code`: "unsupported", "cancelled", "no_response", "rejected" (the verifier's 4xx). */
export class DigitalCredentialsError extends Error {
  constructor(code, message, details) {
    super(message);
    this.name = "DigitalCredentialsError";
    this.code = code;
    this.details = details;
  }
}

/**
 * Asks the browser (and through it a wallet) for the credentials of one request, then posts what
 * came back to the verifier, which checks it against the session and this page's origin.
 * `request` is `dc_api_request` exactly as the verifier answered it; `signal` aborts the wallet prompt.
 * Resolves with the verifier's answer (`{}`); rejects with a DigitalCredentialsError.
 */
export async function presentWithDigitalCredentials({ verifierUrl, sessionId, request, signal }) {
  if (!navigator.credentials || typeof navigator.credentials.get !== "function") {
    throw new DigitalCredentialsError("unsupported", "this browser has no Digital Credentials API");
  }
  let credential;
  try {
    credential = await navigator.credentials.get({
      mediation: "required",
      digital: { requests: [{ protocol: request.protocol, data: request.data }] },
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    const name = error?.name;
    if (name === "AbortError" || name === "NotAllowedError") {
      throw new DigitalCredentialsError("cancelled", "the person or the browser cancelled the request", error);
    }
    throw new DigitalCredentialsError("unsupported", "the browser could not ask a wallet", error);
  }
  if (!credential || credential.data === undefined) {
    throw new DigitalCredentialsError("no_response", "the wallet returned nothing");
  }
  const data = typeof credential.data === "string" ? JSON.parse(credential.data) : credential.data;
  const response = await fetch(
    `${verifierUrl.replace(/\/$/, "")}/v1/verifier/dc-api/${encodeURIComponent(sessionId)}`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      credentials: "omit",
      body: JSON.stringify({ protocol: credential.protocol, data }),
    },
  );
  const body = await response.json().catch(() => ({}));
  if (!response.ok)
    throw new DigitalCredentialsError("rejected", body.error_description || "the verifier refused the response", body);
  return body;
}
