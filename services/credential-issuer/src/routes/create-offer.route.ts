import { cacheScopeOf } from "@attesto/runtime/cache";
import { type App, apiTenantOf, requireApiKey } from "@attesto/runtime/http";
import { z } from "zod";
import { createOffer, OFFER_TTL_SECONDS } from "../domain/create-offer.js";
import { offerFlows } from "../domain/offer.js";
import type { IssuerDependencies } from "../domain/ports.js";

/** Optional string fields: `null` is taken as omitted (some clients send explicit nulls). */
const optionalString = () =>
  z
    .string()
    .nullish()
    .transform((value) => value ?? undefined);

const zCreateOfferBody = z
  .object({
    credential: z
      .object({
        config_id: z.string().min(1),
        claims: z.record(z.string(), z.unknown()),
      })
      .loose(),
    flow: z.enum(offerFlows),
    issuer_did: optionalString(),
    issuer_private_key: optionalString(),
    holder_did: optionalString(),
    expires_in: z
      .number({ error: "must be an integer number of seconds" })
      .int("must be an integer number of seconds")
      .min(OFFER_TTL_SECONDS.min, `must be from ${OFFER_TTL_SECONDS.min} to ${OFFER_TTL_SECONDS.max} seconds`)
      .max(OFFER_TTL_SECONDS.max, `must be from ${OFFER_TTL_SECONDS.min} to ${OFFER_TTL_SECONDS.max} seconds`)
      .nullish()
      // Omitted: the tenant's configured default (IssuerService), else OFFER_TTL_SECONDS.default.
      .transform((value) => value ?? undefined),
    require_transaction_code: z
      .boolean()
      .nullish()
      .transform((value) => value ?? false),
  })
  .loose();

const zCreateOfferResponse = z.object({
  offer_id: z.string(),
  credential_offer_uri: z.string(),
  deep_link: z.string(),
  qr_code_url: z.string().describe("SVG QR code of exactly `deep_link` (public)"),
  page_url: z.string().describe("Public page of the offer: QR code, same-device button, live status (no claim values)"),
  expires_at: z.string(),
});

/** POST /v1/offers (API key, issuer role): creates a credential offer (this service's README). */
export function registerCreateOfferRoute(app: App, deps: IssuerDependencies): void {
  app.post(
    "/v1/offers",
    {
      schema: { body: zCreateOfferBody, response: { 201: zCreateOfferResponse } },
      config: { answers: [503] },
      // onRequest runs before body validation: a request without a valid key is 401 whatever its body.
      onRequest: requireApiKey(deps.apiKeys, "issuer"),
    },
    async (request, reply) => {
      const { body } = request;
      const created = await createOffer(deps, {
        tenant: apiTenantOf(request).tenant,
        configurationId: body.credential.config_id,
        claims: body.credential.claims,
        flow: body.flow,
        issuerDid: body.issuer_did,
        issuerPrivateKey: body.issuer_private_key,
        holderDid: body.holder_did,
        expiresInSeconds: body.expires_in,
        requireTransactionCode: body.require_transaction_code,
        // One cache barrier for the request: its API key check's (requireApiKey).
        cacheScope: cacheScopeOf(request),
      });
      reply.code(201).header("cache-control", "no-store");
      return {
        offer_id: created.offer.id,
        credential_offer_uri: created.credentialOfferUri,
        deep_link: created.deepLink,
        qr_code_url: created.qrCodeUrl,
        page_url: created.pageUrl,
        expires_at: created.offer.expiresAt.toISOString(),
      };
    },
  );
}
