import { InvalidRequest } from "@attesto/runtime/errors";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { ClientAttestationHeaders } from "../domain/client-authentication.js";

type Rule = (value: string) => string | undefined;

/** One form parameter: a string; a repeated one arrives as an array (RFC 6749 §3.1: not allowed). */
const parameter = (about: string, rule: Rule) =>
  z
    .string({ error: (issue) => (Array.isArray(issue.input) ? "must not be repeated" : undefined) })
    .superRefine((value, context) => {
      const problem = rule(value);
      if (problem) context.addIssue({ code: "custom", message: problem });
    })
    .describe(about);

/** A required form parameter: an empty value is a missing one. */
export const required = (about: string, rule: Rule = () => undefined) =>
  parameter(about, (value) => (value === "" ? "is required" : rule(value)));

/** An optional form parameter: an empty value is an absent one. */
export const optional = (about: string, rule: Rule = () => undefined) =>
  parameter(about, (value) => (value === "" ? undefined : rule(value))).optional();

/** A checked optional parameter's value; undefined when absent or empty. */
export const present = (value: string | undefined) => (value === undefined || value === "" ? undefined : value);

/** What the OpenAPI document says these endpoints read. */
export const FORM_CONTENT_TYPES = ["application/x-www-form-urlencoded"];

/** RFC 6749 §5.1: token and PAR responses, errors included, must not be cached. */
export async function preventCaching(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header("Cache-Control", "no-store").header("Pragma", "no-cache");
}

/**
 * RFC 6749 §3.2 / RFC 9126 §2.1: the body is application/x-www-form-urlencoded; no body is one
 * without parameters (the schema then names every missing one).
 */
export function requireFormBody(what: string) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.body === undefined || request.body === null) {
      request.body = {};
      return;
    }
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
