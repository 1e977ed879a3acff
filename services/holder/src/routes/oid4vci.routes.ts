import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { describeCredentialOffer } from "../domain/oid4vci/describe-credential-offer.js";
import { receiveCredential } from "../domain/oid4vci/receive-credential.js";
import type { HolderDependencies } from "../domain/ports.js";
import { userOf } from "./holder-auth.js";

export const LINK_MAX_LENGTH = 16_384;

export const requiredString = (field: string, max = 4096) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .min(1, `${field} is required`)
    .max(max, `${field} must be at most ${max} characters`);

export const optionalString = (field: string, max = 4096) =>
  z
    .string({ error: `${field} must be a string` })
    .max(max, `${field} must be at most ${max} characters`)
    .nullish()
    .transform((value) => value ?? undefined);

const zOfferDetailsBody = z.object({ credential_offer_uri: requiredString("credential_offer_uri", LINK_MAX_LENGTH) });

const zOfferDetails = z.object({
  issuer: z.string(),
  issuer_name: z.string().nullable(),
  issuer_logo_uri: z.string().nullable(),
  credential_configurations: z.array(
    z.object({
      id: z.string(),
      format: z.string(),
      vct: z.string().nullable(),
      display: z.object({ name: z.string(), locale: z.string().nullable() }),
    }),
  ),
  pre_authorized_code_grant: z.object({ pre_authorized_code: z.string(), user_pin_required: z.boolean() }).nullable(),
  expires_at: z.string().nullable(),
});

const zReceiveBody = z
  .object({
    credential_offer_uri: requiredString("credential_offer_uri", LINK_MAX_LENGTH),
    holder_did: requiredString("holder_did", 2048),
    private_key: requiredString("private_key", 8192),
    credential_configuration_id: optionalString("credential_configuration_id", 256),
    user_pin: optionalString("user_pin", 256),
    // OID4VCI's name for the same value (the offer's `tx_code`, the token request's `tx_code`).
    tx_code: optionalString("tx_code", 256),
    notarize_on_ledger: z
      .boolean({ error: "notarize_on_ledger must be a boolean" })
      .nullish()
      .transform((value) => value ?? true),
  })
  .superRefine((body, context) => {
    if (body.user_pin !== undefined && body.tx_code !== undefined && body.user_pin !== body.tx_code) {
      context.addIssue({
        code: "custom",
        path: ["tx_code"],
        message: "tx_code must equal user_pin when both are given",
      });
    }
  });

const zReceived = z.object({
  credential_id: z.string(),
  vct: z.string(),
  issuer_did: z.string(),
  holder_did: z.string(),
  raw_credential: z.string(),
  issued_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  status: z.literal("active"),
  issuer_credential_id: z.string().nullable(),
  issuer_offer_id: z.string().nullable(),
});

/** POST /v1/oid4vci/offer-details and /v1/oid4vci/receive (Bearer): the wallet side of OID4VCI. */
export function registerOid4vciRoutes(scope: App, deps: HolderDependencies): void {
  scope.post(
    "/v1/oid4vci/offer-details",
    { schema: { body: zOfferDetailsBody, response: { 200: zOfferDetails } } },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return describeCredentialOffer(deps, request.body.credential_offer_uri);
    },
  );

  scope.post(
    "/v1/oid4vci/receive",
    { schema: { body: zReceiveBody, response: { 201: zReceived } } },
    async (request, reply) => {
      const { body } = request;
      const credential = await receiveCredential(
        deps,
        userOf(request),
        {
          credentialOfferUri: body.credential_offer_uri,
          holderDid: body.holder_did,
          privateKey: body.private_key,
          credentialConfigurationId: body.credential_configuration_id,
          userPin: body.user_pin ?? body.tx_code,
          notarizeOnLedger: body.notarize_on_ledger,
        },
        request.log,
      );
      reply.code(201).header("cache-control", "no-store");
      return {
        credential_id: credential.id,
        vct: credential.vct,
        issuer_did: credential.issuerDid,
        holder_did: credential.holderDid,
        raw_credential: credential.raw,
        issued_at: credential.issuedAt?.toISOString() ?? null,
        expires_at: credential.expiresAt?.toISOString() ?? null,
        status: credential.status,
        issuer_credential_id: credential.issuerCredentialId,
        issuer_offer_id: credential.issuerOfferId,
      };
    },
  );
}
