import type { FastifyReply } from "fastify";
import { LINK_PAGE_CSP } from "./render-link-page.js";
import { QR_SVG_CONTENT_TYPE, QR_SVG_CSP } from "./render-qr-svg.js";

/** Headers every link document carries: never cached or indexed (each holds a live bearer link). */
function noStore(reply: FastifyReply): FastifyReply {
  return reply.header("cache-control", "no-store").header("x-robots-tag", "noindex, nofollow");
}

/** Sends a QR code SVG with its own CSP (the runtime's helmet sets none). */
export const sendQrSvg = (reply: FastifyReply, svg: string) =>
  noStore(reply).header("content-security-policy", QR_SVG_CSP).type(QR_SVG_CONTENT_TYPE).send(svg);

/** Sends a link page (`renderLinkPage`) with its CSP. */
export const sendLinkPage = (reply: FastifyReply, html: string) =>
  noStore(reply).header("content-security-policy", LINK_PAGE_CSP).type("text/html; charset=utf-8").send(html);

/** Sends a status document (`{ status }`) that a link page polls. */
export const sendLinkStatus = (reply: FastifyReply, body: { status: string; expires_at: string }) =>
  noStore(reply).send(body);
