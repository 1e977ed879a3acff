import type { ClaimsPathElement } from "@attesto/protocol";
import { createDeviceResponse, oid4vpSessionTranscript } from "@attesto/protocol/mdoc";
import type { HolderKey } from "../dids/resolve-holder-key.js";
import { noMatchingCredentials, presentationFailed } from "../errors.js";
import { isJsonObject } from "../http/read-json.js";
import type { ResolvedAuthorizationRequest } from "../oid4vp/resolve-authorization-request.js";
import { encryptionKeyOf } from "../oid4vp/submit-authorization-response.js";

/**
 * The elements an mdoc presentation discloses, by namespace: the chosen `[namespace, element]`
 * paths (disclosed_claims), else the elements the credential query asks for (`requested`, as
 * `{namespace: {element: value}}`): never more than the verifier requested unless chosen.
 */
export function mdocDisclosure(
  requested: Record<string, unknown>,
  chosen: ClaimsPathElement[][] | undefined,
  credentialId: string,
): Record<string, string[]> {
  const disclose: Record<string, string[]> = {};
  if (!chosen) {
    for (const [namespace, elements] of Object.entries(requested)) {
      if (isJsonObject(elements)) disclose[namespace] = Object.keys(elements);
    }
    return disclose;
  }
  for (const path of chosen) {
    const [namespace, element] = path;
    if (path.length !== 2 || typeof namespace !== "string" || typeof element !== "string") {
      throw noMatchingCredentials(
        `disclosed claims of mdoc ${credentialId} must be ["<namespace>", "<element>"] (JSON array paths)`,
      );
    }
    const elements = disclose[namespace] ?? [];
    if (!elements.includes(element)) elements.push(element);
    disclose[namespace] = elements;
  }
  return disclose;
}

/**
 * An mdoc presentation (OID4VP 1.0 Appendix B.2): a DeviceResponse disclosing only `disclose`,
 * device-signed by the holder key (the MSO's deviceKey) over the OpenID4VPHandover of this request:
 * its client_id, nonce and response_uri, and for direct_post.jwt the thumbprint of the verifier's
 * encryption key the response will be encrypted to (B.2.6.1).
 */
export async function createMdocPresentation(input: {
  issuerSigned: string;
  disclose: Record<string, string[]>;
  holder: HolderKey;
  request: ResolvedAuthorizationRequest;
}): Promise<string> {
  const { request } = input;
  const encryptionJwk =
    request.responseMode === "direct_post.jwt" ? encryptionKeyOf(request.clientMetadata) : undefined;
  const sessionTranscript = await oid4vpSessionTranscript({
    clientId: request.clientId,
    nonce: request.nonce,
    responseUri: request.responseUri,
    ...(encryptionJwk ? { responseEncryptionJwk: encryptionJwk as never } : {}),
  });
  try {
    return await createDeviceResponse({
      issuerSigned: input.issuerSigned,
      disclose: input.disclose,
      devicePrivateJwk: input.holder.privateJwk as Record<string, unknown>,
      sessionTranscript,
    });
  } catch (error) {
    throw presentationFailed("the mdoc presentation could not be made with private_key", { cause: error });
  }
}
