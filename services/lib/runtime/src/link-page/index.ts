/**
 * `@attesto/runtime/link-page`: the QR code and the public page of a wallet deep link (an offer's
 * `openid-credential-offer://`, a request's `openid4vp://`), shared by the issuer and the verifier.
 */
export { LINK_PAGE_CSP, type LinkPageInput, type LinkPageStatus, renderLinkPage } from "./render-link-page.js";
export { QR_SVG_CONTENT_TYPE, QR_SVG_CSP, renderQrSvg } from "./render-qr-svg.js";
export { sendLinkPage, sendLinkStatus, sendQrSvg } from "./send-link-page.js";
