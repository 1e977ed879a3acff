import { SessionTranscript } from "@owf/mdoc";
import { jwkThumbprint, type ThumbprintableJwk } from "../keys/jwk-thumbprint.js";
import { createMdocContext } from "./mdoc-context.js";

/** The SessionTranscript an mdoc's device signature covers (ISO/IEC 18013-5 §9.1.5.1). */
export type MdocSessionTranscript = SessionTranscript;

const thumbprintBytes = (jwk: ThumbprintableJwk | undefined) =>
  jwk ? new Uint8Array(Buffer.from(jwkThumbprint(jwk), "base64url")) : undefined;

/**
 * OID4VP 1.0 Appendix B.2.6.1, redirect flows (`direct_post`, `direct_post.jwt`):
 * `[null, null, ["OpenID4VPHandover", sha256(cbor([client_id, nonce, jwkThumbprint, response_uri]))]]`,
 * where jwkThumbprint is the RFC 7638 SHA-256 thumbprint (bytes) of the verifier's response
 * encryption key for encrypted responses, else null. `clientId` is the full client_id, prefix included.
 */
export function oid4vpSessionTranscript(input: {
  clientId: string;
  nonce: string;
  responseUri: string;
  responseEncryptionJwk?: ThumbprintableJwk;
}): Promise<MdocSessionTranscript> {
  const jwk = thumbprintBytes(input.responseEncryptionJwk);
  return SessionTranscript.forOid4Vp(
    {
      clientId: input.clientId,
      nonce: input.nonce,
      responseUri: input.responseUri,
      ...(jwk ? { jwkThumbprint: jwk } : {}),
    },
    createMdocContext(),
  );
}

/**
 * OID4VP 1.0 Appendix B.2.6.2, Digital Credentials API (`dc_api`, `dc_api.jwt`):
 * `[null, null, ["OpenID4VPDCAPIHandover", sha256(cbor([origin, nonce, jwkThumbprint]))]]`, `origin`
 * being the calling web origin (`https://rp.example`, without the `origin:` client id prefix).
 */
export function dcApiSessionTranscript(input: {
  origin: string;
  nonce: string;
  responseEncryptionJwk?: ThumbprintableJwk;
}): Promise<MdocSessionTranscript> {
  const jwk = thumbprintBytes(input.responseEncryptionJwk);
  return SessionTranscript.forOid4VpDcApi(
    { origin: input.origin, nonce: input.nonce, ...(jwk ? { jwkThumbprint: jwk } : {}) },
    createMdocContext(),
  );
}

/** SessionTranscriptBytes: the transcript as a tagged (24) CBOR data item, as other libraries take it. */
export const sessionTranscriptBytes = (transcript: MdocSessionTranscript): Uint8Array =>
  transcript.encode({ asDataItem: true });
