import { InvalidRequest } from "@attesto/runtime/errors";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { ClientAttestationHeaders } from "../domain/client-authentication.js";

const zFormValue = z.union([z.string(), z.array(z.string())]);

/**
 * Form fields; a repeated field arrives as an array (refused by the steps, with its name). The named
 * fields document the endpoint: the steps check them, so that every failure is an RFC 6749 error.
 */
export const formBody = (fields: Record<string, string>) =>
  z
    .object(
      Object.fromEntries(Object.entries(fields).map(([name, about]) => [name, zFormValue.optional().describe(about)])),
    )
    .catchall(zFormValue)
    .nullish();

/** What the OpenAPI document says these endpoints read. */
export const FORM_CONTENT_TYPES = ["application/x-www-form-urlencoded"];

/** RFC 6749 §5.1: token and PAR responses, errors included, must not be cached. */
export async function preventCaching(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header("Cache-Control", "no-store").header("Pragma", "no-cache");
}

/** RFC 6749 §3.2 / RFC 9126 §2.1: the body is application/x-www-form-urlencoded. */
export function requireFormBody(what: string) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.body === undefined || request.body === null) return;
    const type = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
    if (type !== "application/x-www-form-urlencoded") {
      throw new InvalidRequest(`${what} body must be application/x-www-form-urlencoded`);
    }
  };
}

/** The attest_jwt_client_auth headers of a request. */
export const clientAttestationHeadersOf = (request: FastifyRequest): ClientAttestationHeaders => ({
  attestation: request.headers["oauth-client-attestation"],
  pop: request.headers["oauth-client-attestation-pop"],
});
