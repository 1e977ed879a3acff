import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { getOfferDocument } from "../domain/get-offer-document.js";
import type { IssuerDependencies } from "../domain/ports.js";
import { zOfferDocument } from "./issuer-documents.schema.js";

const zOfferParams = z.object({ offerId: z.guid({ error: "must be a UUID" }) });

/** GET /v1/offers/:offerId (public): the OID4VCI credential offer a wallet fetches (this service's README). */
export function registerGetOfferRoute(app: App, deps: IssuerDependencies): void {
  app.get(
    "/v1/offers/:offerId",
    { schema: { params: zOfferParams, response: { 200: zOfferDocument } }, config: { answers: [404, 410] } },
    async (request, reply) => {
      // The document carries the pre-authorized code: never cached by anyone.
      reply.header("cache-control", "no-store");
      return getOfferDocument(deps, request.params.offerId.toLowerCase());
    },
  );
}
