import { parseSdJwtPresentation, SdJwtVerificationError } from "@attesto/protocol";
import { MdocVerificationError, parseDeviceResponse } from "@attesto/protocol/mdoc";
import { failed, perPresentationCheck, success, type VerificationCheck } from "./check.js";

/**
 * `sd_jwt_structure`: the presentation is an SD-JWT under RFC 9901's rules: a compact issuer JWS
 * with an allowed `alg` (ES256, EdDSA; never none), a supported `_sd_alg`, well-formed disclosures,
 * no duplicate digest or disclosure, no unreferenced disclosure, no claim-name conflict, and a
 * well-formed KB-JWT when one is appended. An `mso_mdoc` presentation is a base64url DeviceResponse
 * (ISO/IEC 18013-5) with status 0, one document, an MSO signed with an accepted algorithm and an x5chain.
 */
const perPresentation = perPresentationCheck("sd_jwt_structure", (presentation) => {
  if (presentation.format === "mso_mdoc") {
    try {
      presentation.mdoc = parseDeviceResponse(presentation.raw);
    } catch (error) {
      if (error instanceof MdocVerificationError) return failed(error.code, error.message);
      throw error;
    }
    return success("valid", `DeviceResponse is well formed (${presentation.mdoc.elements.length} elements)`);
  }
  try {
    presentation.parsed = parseSdJwtPresentation(presentation.raw as string);
  } catch (error) {
    if (error instanceof SdJwtVerificationError) return failed(error.code, error.message);
    throw error;
  }
  return success("valid", `SD-JWT is well formed (${presentation.parsed.disclosures.length} disclosures)`);
});

export const sdJwtStructureCheck: VerificationCheck = {
  name: "sd_jwt_structure",
  async run(context) {
    if (context.presentations.length === 0) return failed("no_presentation", "the vp_token holds no presentation");
    return perPresentation.run(context);
  },
};
