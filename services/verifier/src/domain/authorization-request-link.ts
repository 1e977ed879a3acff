/** Where a wallet fetches the request object of a session. */
export const requestUriOf = (verifierUrl: string, requestUriId: string) =>
  `${verifierUrl}/v1/verifier/request/${requestUriId}`;

/** The `openid4vp://` link a wallet starts from (cross-device QR code or same-device button). */
export const authorizationRequestLinkOf = (
  verifierUrl: string,
  session: { clientId: string; requestUriId: string },
): string =>
  `openid4vp://?client_id=${encodeURIComponent(session.clientId)}&request_uri=${encodeURIComponent(
    requestUriOf(verifierUrl, session.requestUriId),
  )}`;

/** The link's QR code (SVG) and public page, keyed by the request_uri's random id like the link itself. */
export const requestLinkPagesOf = (verifierUrl: string, requestUriId: string) => ({
  qrCodeUrl: `${requestUriOf(verifierUrl, requestUriId)}/qr.svg`,
  pageUrl: `${requestUriOf(verifierUrl, requestUriId)}/page`,
});
