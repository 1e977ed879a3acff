import type { App } from "@attesto/runtime/http";
import { renderLinkPage, renderQrSvg, sendLinkPage, sendLinkStatus, sendQrSvg } from "@attesto/runtime/link-page";
import { z } from "zod";
import { getRequestLink } from "../domain/get-request-link.js";
import type { VerifierDependencies } from "../domain/ports.js";
import type { SessionStatus } from "../domain/verification-session.js";

const zParams = z.object({ requestUriId: z.string().min(1).max(128, "must be at most 128 characters") });

const STATUSES = ["pending", "in_progress", "completed", "failed", "expired"] as const satisfies SessionStatus[];

const zRequestStatus = z.object({ status: z.enum(STATUSES), expires_at: z.string() });

const LABELS: Record<SessionStatus, string> = {
  pending: "Waiting for your wallet",
  in_progress: "Checking the presentation",
  completed: "Verified",
  failed: "Verification failed",
  expired: "This request has expired",
};

/**
 * The request's deep link for people (public, keyed by the request_uri's random id):
 * `GET /v1/verifier/request/:requestUriId/qr.svg` (the QR code of exactly `authorization_request`),
 * `/page` (QR code, same-device button, live status) and `/status` (what the page polls). None
 * shows a claim value or a check result.
 */
export function registerRequestLinkRoutes(app: App, deps: VerifierDependencies): void {
  app.get(
    "/v1/verifier/request/:requestUriId/qr.svg",
    { schema: { params: zParams }, config: { answers: [404, 410], produces: "image/svg+xml" } },
    async (request, reply) => {
      const { link } = await getRequestLink(deps, request.params.requestUriId);
      return sendQrSvg(reply, await renderQrSvg(link));
    },
  );

  app.get(
    "/v1/verifier/request/:requestUriId/page",
    { schema: { params: zParams }, config: { answers: [404, 410], produces: "text/html" } },
    async (request, reply) => {
      const found = await getRequestLink(deps, request.params.requestUriId);
      const html = renderLinkPage({
        title: "Share a credential",
        intro: "Scan the QR code with your wallet app, or open the request in a wallet on this device.",
        link: found.link,
        qrSvg: await renderQrSvg(found.link),
        openLabel: "Open in wallet",
        status: {
          current: found.status,
          // Relative: the page polls the origin it was loaded from, whatever host name reached it.
          url: "status",
          labels: LABELS,
          final: ["completed", "failed", "expired"],
          tones: { completed: "ok", failed: "bad", expired: "bad" },
        },
        expiresAt: found.expiresAt.toISOString(),
      });
      return sendLinkPage(reply, html);
    },
  );

  app.get(
    "/v1/verifier/request/:requestUriId/status",
    { schema: { params: zParams, response: { 200: zRequestStatus } }, config: { answers: [404] } },
    async (request, reply) => {
      const found = await getRequestLink(deps, request.params.requestUriId);
      return sendLinkStatus(reply, { status: found.status, expires_at: found.expiresAt.toISOString() });
    },
  );
}
