import { CoseKey, DeviceRequest, DeviceResponse, DocRequest, IssuerSigned, ItemsRequest } from "@owf/mdoc";
import { createMdocContext } from "./mdoc-context.js";
import type { MdocSessionTranscript } from "./session-transcript.js";

export interface DeviceResponseInput {
  /** The stored credential: base64url IssuerSigned, as OID4VCI delivers it. */
  issuerSigned: string;
  /** The elements to disclose, by namespace (only these leave the wallet). */
  disclose: Record<string, string[]>;
  /** The device private key (P-256 or Ed25519 JWK) whose public key is the MSO's deviceKey. */
  devicePrivateJwk: Record<string, unknown>;
  sessionTranscript: MdocSessionTranscript;
}

/**
 * A holder's OID4VP presentation of an mdoc (Appendix B.2): a base64url DeviceResponse with one
 * document holding only the requested issuer-signed elements (`age_over_NN` answered per ISO/IEC
 * 18013-5 §7.2.5) and a device signature (ES256 or EdDSA) over `sessionTranscript`. Throws when an element
 * is not in the credential.
 */
export async function createDeviceResponse(input: DeviceResponseInput): Promise<string> {
  const issuerSigned = IssuerSigned.fromEncodedForOid4Vci(input.issuerSigned);
  const docType = issuerSigned.issuerAuth.mobileSecurityObject.docType;
  const namespaces = new Map(
    Object.entries(input.disclose).map(([namespace, elements]) => [
      namespace,
      new Map(elements.map((element) => [element, false])),
    ]),
  );
  const deviceRequest = DeviceRequest.create({
    docRequests: [DocRequest.create({ itemsRequest: ItemsRequest.create({ docType, namespaces }) })],
  });
  const { kty, crv, x, y, d } = input.devicePrivateJwk as Record<string, string>;
  // The device key is the holder's: P-256 (ES256) or Ed25519 (EdDSA), as the proof of possession was.
  const alg = kty === "OKP" ? "EdDSA" : "ES256";
  const response = await DeviceResponse.createWithDeviceRequest(
    {
      deviceRequest,
      sessionTranscript: input.sessionTranscript,
      issuerSigned: [issuerSigned],
      signature: { signingKey: CoseKey.fromJwk({ kty, crv, x, ...(y ? { y } : {}), d, alg } as never) },
    },
    createMdocContext(),
  );
  return response.encodedForOid4Vp;
}
