import type { App } from "@attesto/runtime/http";
import { renderLinkPage, renderQrSvg, sendLinkPage, sendLinkStatus, sendQrSvg } from "@attesto/runtime/link-page";
import { z } from "zod";
import { getOfferLink, type OfferLinkStatus } from "../domain/get-offer-link.js";
import type { IssuerDependencies } from "../domain/ports.js";

const zOfferParams = z.object({ offerId: z.guid({ error: "must be a UUID" }) });

const zOfferStatus = z.object({
  status: z.enum(["offered", "redeemed", "expired"]),
  expires_at: z.string(),
});

const LABELS: Record<OfferLinkStatus, string> = {
  offered: "Waiting for your wallet",
  redeemed: "Accepted by a wallet",
  expired: "This offer has expired",
};

/**
 * The offer's deep link for people (public, keyed by the random offer id): `GET /v1/offers/:offerId/qr.svg`
 * (the QR code of exactly `deep_link`), `/page` (QR code, same-device button, live status) and
 * `/status` (what the page polls). None shows a claim value.
 */
export function registerOfferLinkRoutes(app: App, deps: IssuerDependencies): void {
  app.get(
    "/v1/offers/:offerId/qr.svg",
    { schema: { params: zOfferParams }, config: { answers: [404, 410], produces: "image/svg+xml" } },
    async (request, reply) => {
      const link = await getOfferLink(deps, request.params.offerId.toLowerCase());
      return sendQrSvg(reply, await renderQrSvg(link.deepLink));
    },
  );

  app.get(
    "/v1/offers/:offerId/page",
    { schema: { params: zOfferParams }, config: { answers: [404, 410], produces: "text/html" } },
    async (request, reply) => {
      const offerId = request.params.offerId.toLowerCase();
      const link = await getOfferLink(deps, offerId);
      const html = renderLinkPage({
        title: "Add a credential to your wallet",
        intro: "Scan the QR code with your wallet app, or open the offer in a wallet on this device.",
        link: link.deepLink,
        qrSvg: await renderQrSvg(link.deepLink),
        openLabel: "Open in wallet",
        status: {
          current: link.status,
          // Relative: the page polls the origin it was loaded from, whatever host name reached it.
          url: "status",
          labels: LABELS,
          final: ["redeemed", "expired"],
          tones: { redeemed: "ok", expired: "bad" },
        },
        expiresAt: link.expiresAt.toISOString(),
      });
      return sendLinkPage(reply, html);
    },
  );

  app.get(
    "/v1/offers/:offerId/status",
    { schema: { params: zOfferParams, response: { 200: zOfferStatus } } },
    async (request, reply) => {
      const link = await getOfferLink(deps, request.params.offerId.toLowerCase());
      return sendLinkStatus(reply, { status: link.status, expires_at: link.expiresAt.toISOString() });
    },
  );
}
