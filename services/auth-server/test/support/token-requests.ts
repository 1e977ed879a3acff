import { createDpopProof } from "@attesto/protocol";
import type { App } from "@attesto/runtime/http";
import type { LightMyRequestResponse } from "fastify";
import type { JWK } from "jose";
import { expect } from "vitest";
import { FORM_HEADERS, form, TOKEN_URL } from "./test-auth-server.js";

/** POST /v1/token with a form body and, optionally, DPoP header(s). */
export function postToken(
  app: App,
  fields: Record<string, string | string[]>,
  options: { dpop?: string | string[]; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: "POST",
    url: "/v1/token",
    headers: { ...FORM_HEADERS, ...(options.dpop === undefined ? {} : { dpop: options.dpop }), ...options.headers },
    payload: form(fields),
  });
}

/** A DPoP proof for the token endpoint's public URL. */
export function tokenProof(privateJwk: JWK, options: { nonce?: string; jti?: string; url?: string; now?: Date } = {}) {
  return createDpopProof({
    privateJwk,
    method: "POST",
    url: options.url ?? TOKEN_URL,
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
    ...(options.jti === undefined ? {} : { jti: options.jti }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
}

/** Every token endpoint answer, errors included, forbids caching (RFC 6749 §5.1). */
export function expectNoStore(response: LightMyRequestResponse): void {
  expect(response.headers["cache-control"]).toBe("no-store");
  expect(response.headers.pragma).toBe("no-cache");
}

/** The whole wire answer of an OAuth error: status, exact body, no-store, and no DPoP-Nonce. */
export function expectOAuthError(
  response: LightMyRequestResponse,
  status: number,
  error: string,
  description: string,
): void {
  expect({ status: response.statusCode, body: response.json() }).toStrictEqual({
    status,
    body: { error, error_description: description },
  });
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  expectNoStore(response);
  if (error !== "use_dpop_nonce") expect(response.headers["dpop-nonce"]).toBeUndefined();
}

/** A 400 invalid_request naming each failing parameter (`<field> <message>`) in `errors` and the description. */
export function expectParameterErrors(response: LightMyRequestResponse, ...descriptions: string[]): void {
  const errors = descriptions.map((description) => {
    const space = description.indexOf(" ");
    return { field: description.slice(0, space), message: description.slice(space + 1) };
  });
  expect({ status: response.statusCode, body: response.json() }).toStrictEqual({
    status: 400,
    body: { error: "invalid_request", error_description: descriptions.join("; "), errors },
  });
  expectNoStore(response);
}
