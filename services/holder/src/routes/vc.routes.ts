import { zReferenceFields } from "@attesto/protocol";
import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { referenceViewOf } from "../domain/credentials/credential-references.js";
import {
  deleteCredential,
  getCredential,
  listCredentials,
  type WithStatus,
} from "../domain/credentials/credentials.js";
import type { CredentialSummary } from "../domain/model.js";
import type { HolderDependencies } from "../domain/ports.js";
import { userOf } from "./holder-auth.js";

const zSummary = z.object({
  id: z.string(),
  vct: z.string(),
  issuer_did: z.string(),
  holder_did: z.string(),
  issued_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  created_at: z.string(),
  status: z.literal("active"),
  /** The issuer's id of this credential (Attesto: `PATCH /v1/credentials/:id`), null when it named none. */
  issuer_credential_id: z.string().nullable(),
  /** The issuer's id of the offer it came from, null when it named none. */
  issuer_offer_id: z.string().nullable(),
  /** The credential's current status from its issuer's Token Status List (`status` stays the wallet's own). */
  credential_status: z.enum(["valid", "revoked", "suspended", "status_unknown", "no_status"]),
  /** mdocs only (`mso_mdoc`); an SD-JWT VC's listing entry is unchanged. */
  format: z.literal("mso_mdoc").optional(),
  /** mdocs only: the ISO 18013-5 document type (also in `vct`). */
  doctype: z.string().optional(),
});

const zDetail = zSummary.extend({
  /** Why `credential_status` is `status_unknown`. */
  credential_status_reason: z.string().optional(),
  claims: z.record(z.string(), z.unknown()),
  raw_credential: z.string(),
  /** Notarized credentials only (detail view): `block_chain`, `object_id`, and the reference fields (pending, then anchored). */
  reference: z
    .object({ block_chain: z.string(), object_id: z.string() })
    .extend(zReferenceFields.partial().shape)
    .optional()
    .describe(
      "Notarized credentials: block_chain and object_id, then state (pending until anchored), the digests and, once anchored, the Merkle proof and the chain transaction (attesto notarization verify)",
    ),
});

/** `id` must be a UUID: anything else is 400 (this service's README: `id` UUID); an unknown UUID is 404. */
const zIdParams = z.object({ id: z.uuid({ error: "id must be a UUID" }) });

function summaryOf(credential: WithStatus<CredentialSummary>): z.infer<typeof zSummary> {
  return {
    id: credential.id,
    vct: credential.vct,
    issuer_did: credential.issuerDid,
    holder_did: credential.holderDid,
    issued_at: credential.issuedAt?.toISOString() ?? null,
    expires_at: credential.expiresAt?.toISOString() ?? null,
    created_at: credential.createdAt.toISOString(),
    status: credential.status,
    issuer_credential_id: credential.issuerCredentialId,
    issuer_offer_id: credential.issuerOfferId,
    credential_status: credential.credentialStatus.status,
    ...(credential.format === "mso_mdoc" ? { format: "mso_mdoc" as const, doctype: credential.vct } : {}),
  };
}

/** The holder's credentials (Bearer): list, detail, soft delete. */
export function registerVcRoutes(scope: App, deps: HolderDependencies): void {
  scope.get(
    "/v1/vc",
    { schema: { response: { 200: z.object({ credentials: z.array(zSummary) }) } } },
    async (request) => ({
      credentials: (await listCredentials(deps, userOf(request), request.log)).map(summaryOf),
    }),
  );

  scope.get("/v1/vc/:id", { schema: { params: zIdParams, response: { 200: zDetail } } }, async (request, reply) => {
    const credential = await getCredential(deps, userOf(request), request.params.id.toLowerCase(), request.log);
    reply.header("cache-control", "no-store");
    const { reason } = credential.credentialStatus;
    const reference = referenceViewOf(credential);
    return {
      ...summaryOf(credential),
      ...(reason === undefined ? {} : { credential_status_reason: reason }),
      claims: credential.claims,
      raw_credential: credential.raw,
      ...(reference ? { reference } : {}),
    };
  });

  scope.delete(
    "/v1/vc/:id",
    { schema: { params: zIdParams }, config: { answers: [204, 404] } },
    async (request, reply) => {
      await deleteCredential(deps, userOf(request), request.params.id.toLowerCase(), request.log);
      return reply.code(204).send();
    },
  );
}
