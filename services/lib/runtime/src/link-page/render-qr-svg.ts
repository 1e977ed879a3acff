import QRCode from "qrcode";

/**
 * The QR code of a deep link as a standalone SVG document (the `qrcode` library): black modules on
 * white with the standard four-module quiet zone, error correction M (what phone cameras and
 * wallet scanners read most reliably at the link lengths of offers and requests).
 */
export function renderQrSvg(link: string): Promise<string> {
  return QRCode.toString(link, {
    type: "svg",
    errorCorrectionLevel: "M",
    margin: 4,
    color: { dark: "#000000ff", light: "#ffffffff" },
  });
}

/** Content-Security-Policy of a served SVG: it is an image and may load or run nothing. */
export const QR_SVG_CSP = "default-src 'none'; frame-ancestors 'none'";

/** Media type of the QR code documents. */
export const QR_SVG_CONTENT_TYPE = "image/svg+xml; charset=utf-8";
