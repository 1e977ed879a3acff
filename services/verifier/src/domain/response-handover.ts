import { jwkThumbprint } from "@attesto/protocol";
import type { MdocHandover } from "./checks/check.js";
import { isEncryptedMode, type VerificationSession } from "./verification-session.js";

/**
 * How a response reached the verifier: what its key-binding audience is and what an mdoc
 * `SessionTranscript` hashes (OID4VP 1.0 Appendix B.2.6: the OpenID4VP handover for redirect flows,
 * the DC API handover for the browser API). Built in one place, handed to every check.
 */
export type ResponseHandover =
  | {
      kind: "openid4vp";
      /** The request's client_id (prefix included). */
      clientId: string;
      nonce: string;
      /** Where the wallet posted (the request's `response_uri`). */
      responseUri: string;
      /** RFC 7638 SHA-256 thumbprint (base64url) of the ephemeral encryption key (`direct_post.jwt`). */
      encryptionJwkThumbprint: string | undefined;
    }
  | {
      kind: "dc_api";
      /** The web origin that called `navigator.credentials.get` (checked against `expected_origins`). */
      origin: string;
      nonce: string;
      /** The signed request's client_id; undefined for unsigned requests (the wallet uses `origin:<origin>`). */
      clientId: string | undefined;
      /** Thumbprint of the ephemeral encryption key (`dc_api.jwt`). */
      encryptionJwkThumbprint: string | undefined;
    };

const thumbprintOf = (session: Pick<VerificationSession, "encryptionPublicJwk">) =>
  session.encryptionPublicJwk ? jwkThumbprint(session.encryptionPublicJwk) : undefined;

export const openid4vpHandoverOf = (
  session: Pick<VerificationSession, "clientId" | "nonce" | "encryptionPublicJwk">,
  responseUri: string,
): ResponseHandover => ({
  kind: "openid4vp",
  clientId: session.clientId,
  nonce: session.nonce,
  responseUri,
  encryptionJwkThumbprint: thumbprintOf(session),
});

export const dcApiHandoverOf = (
  session: Pick<VerificationSession, "nonce" | "encryptionPublicJwk">,
  origin: string,
  clientId: string | undefined,
): ResponseHandover => ({
  kind: "dc_api",
  origin,
  nonce: session.nonce,
  clientId,
  encryptionJwkThumbprint: thumbprintOf(session),
});

/**
 * The audience a key-binding proof must name (OID4VP 1.0 Appendix A.4): the client_id, except for
 * an unsigned DC API request, which has none: then `origin:<origin>`.
 */
export const keyBindingAudienceOf = (handover: ResponseHandover): string =>
  handover.kind === "dc_api" && handover.clientId === undefined
    ? `origin:${handover.origin}`
    : (handover.clientId as string);

/** The handover as the mdoc checks take it (checks/check.ts `MdocHandover`): the encryption key only when the response was encrypted. */
export function mdocHandoverOf(
  handover: ResponseHandover,
  session: Pick<VerificationSession, "responseMode" | "encryptionPublicJwk">,
): MdocHandover {
  const key =
    isEncryptedMode(session.responseMode) && session.encryptionPublicJwk
      ? { responseEncryptionJwk: session.encryptionPublicJwk }
      : {};
  return handover.kind === "dc_api"
    ? { kind: "dc_api", origin: handover.origin, ...key }
    : { kind: "oid4vp", responseUri: handover.responseUri, ...key };
}
