import { mdocCredentialType } from "../mdoc/mdoc-checks.js";
import { failed, notEvaluable, perPresentationCheck, success } from "./check.js";

/** The SD-JWT VC media type (`typ` header). */
export const SD_JWT_VC_TYP = "dc+sd-jwt";

/**
 * `credential_type`: the issuer-signed JWT's `typ` is `dc+sd-jwt`. The legacy `vc+sd-jwt` of
 * earlier SD-JWT VC drafts is refused: queries here ask for the `dc+sd-jwt` format only. For an
 * mdoc: the Document's docType is the one its issuer signed in the MSO.
 */
export const credentialTypeCheck = perPresentationCheck("credential_type", ({ parsed, mdoc }) => {
  if (mdoc) return mdocCredentialType(mdoc);
  if (!parsed) return notEvaluable();
  const typ = parsed.issuerJwt.header.typ;
  if (typ !== SD_JWT_VC_TYP) {
    const shown = typeof typ === "string" ? `'${typ.slice(0, 40)}'` : "missing";
    return failed("typ_invalid", `typ is ${shown}; expected '${SD_JWT_VC_TYP}'`);
  }
  return success("valid", `typ is '${SD_JWT_VC_TYP}'`);
});
