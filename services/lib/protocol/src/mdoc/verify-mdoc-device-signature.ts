import { DeviceAuthentication } from "@owf/mdoc";
import { createMdocContext } from "./mdoc-context.js";
import { MdocVerificationError } from "./mdoc-verification-error.js";
import { MDOC_ISSUER_ALGORITHMS, type ParsedMdocPresentation } from "./parse-device-response.js";
import type { MdocSessionTranscript } from "./session-transcript.js";

const fail = (code: string, message: string): never => {
  throw new MdocVerificationError(code, message);
};

/**
 * mdoc device authentication by signature (ISO/IEC 18013-5 §9.1.3): the DeviceSignature is a
 * COSE_Sign1 with a detached payload, made with the MSO's deviceKey over DeviceAuthenticationBytes
 * = #6.24(bstr .cbor ["DeviceAuthentication", SessionTranscript, docType, DeviceNameSpacesBytes]).
 * The transcript is the one of this flow (session-transcript.ts), so a signature made for another
 * session, verifier or response key fails. Device MACs are refused: they need a reader key that
 * OID4VP flows do not establish.
 */
export async function verifyMdocDeviceSignature(
  presentation: ParsedMdocPresentation,
  sessionTranscript: MdocSessionTranscript,
): Promise<void> {
  const { document } = presentation;
  const deviceAuth = document.deviceSigned.deviceAuth;
  if (deviceAuth.deviceMac) fail("device_mac_unsupported", "device authentication by MAC is not supported over OID4VP");
  const signature = deviceAuth.deviceSignature;
  if (!signature) return fail("device_signature_missing", "the document has no device signature");
  // An attached payload would be signed instead of this session's DeviceAuthentication.
  if (signature.payload !== null && signature.payload !== undefined) {
    fail("device_signature_invalid", "the device signature must have a detached payload");
  }
  let algorithm: string;
  try {
    algorithm = signature.signatureAlgorithmName;
  } catch {
    return fail("device_signature_invalid", "the device signature names no supported algorithm");
  }
  if (!(MDOC_ISSUER_ALGORITHMS as readonly string[]).includes(algorithm)) {
    fail("alg_not_allowed", "the device signature uses an algorithm not accepted here");
  }
  signature.detachedPayload = DeviceAuthentication.create({
    sessionTranscript,
    docType: document.docType,
    deviceNamespaces: document.deviceSigned.deviceNamespaces,
  }).encode({ asDataItem: true });
  const deviceKey = document.issuerSigned.issuerAuth.mobileSecurityObject.deviceKeyInfo.deviceKey;
  let verified: boolean;
  try {
    verified = await createMdocContext().cose.sign1.verify({ sign1: signature, key: deviceKey });
  } catch {
    verified = false;
  }
  if (!verified) {
    fail(
      "device_signature_invalid",
      "the device signature does not verify over this session's transcript with the MSO's device key",
    );
  }
}
