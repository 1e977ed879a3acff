import { decodeEd25519Seed, KeyFormatError } from "@attesto/protocol";
import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { createHolderDid } from "../domain/dids/create-did.js";
import { deleteHolderDid } from "../domain/dids/delete-did.js";
import { importHolderDid } from "../domain/dids/import-did.js";
import { listHolderDids } from "../domain/dids/list-dids.js";
import { LEDGER_DID_METHOD, LEDGER_DID_PREFIX } from "../domain/model.js";
import type { HolderDependencies } from "../domain/ports.js";
import { userOf } from "./holder-auth.js";

const DID_MAX_LENGTH = 2048;

const requiredString = (field: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) });

const zCreateDidBody = z.object({
  method: requiredString("method").min(1, "method is required").max(64, "method is not supported"),
});

const zCreatedDid = z.object({ did: z.string(), private_key: z.string() });

const zImportDidBody = z.object({
  did: requiredString("did")
    .max(DID_MAX_LENGTH, `did must be at most ${DID_MAX_LENGTH} characters`)
    .startsWith(LEDGER_DID_PREFIX, `did must start with ${LEDGER_DID_PREFIX}`)
    .regex(/^did:ledger:[A-Za-z0-9._:%-]+$/, "did must be a did:ledger DID (did:ledger:<id>)"),
  private_key: requiredString("private_key").transform((value, context) => {
    try {
      return decodeEd25519Seed(value.trim().replace(/=+$/, ""));
    } catch (error) {
      if (!(error instanceof KeyFormatError)) throw error;
      context.addIssue({ code: "custom", message: "private_key must be a base64url Ed25519 private key (32 bytes)" });
      return z.NEVER;
    }
  }),
});

const zDidResult = z.object({ did: z.string(), method: z.literal(LEDGER_DID_METHOD), status: z.literal("active") });

const zDidList = z.object({
  dids: z.array(
    z.object({
      did: z.string(),
      method: z.literal(LEDGER_DID_METHOD),
      status: z.literal("active"),
      created_at: z.string(),
    }),
  ),
});

const zDidParams = z.object({ did: z.string().min(1).max(DID_MAX_LENGTH) });

/** The holder's DIDs (Bearer): create, import, list, remove. Only did:ledger DIDs are kept (see README). */
export function registerDidRoutes(scope: App, deps: HolderDependencies): void {
  scope.post(
    "/v1/did",
    { schema: { body: zCreateDidBody, response: { 201: zCreatedDid } } },
    async (request, reply) => {
      const created = await createHolderDid(deps, userOf(request), request.body.method);
      reply.code(201).header("cache-control", "no-store");
      return { did: created.did, private_key: created.privateKey };
    },
  );

  scope.post(
    "/v1/did/import",
    { schema: { body: zImportDidBody, response: { 201: zDidResult } } },
    async (request, reply) => {
      const held = await importHolderDid(deps, userOf(request), {
        did: request.body.did,
        seed: request.body.private_key,
      });
      reply.code(201);
      return { did: held.did, method: held.method, status: held.status };
    },
  );

  scope.get("/v1/did", { schema: { response: { 200: zDidList } } }, async (request) => {
    const dids = await listHolderDids(deps, userOf(request));
    return {
      dids: dids.map((did) => ({
        did: did.did,
        method: did.method,
        status: did.status,
        created_at: did.createdAt.toISOString(),
      })),
    };
  });

  scope.delete(
    "/v1/did/:did",
    { schema: { params: zDidParams }, config: { answers: [204, 404] } },
    async (request, reply) => {
      await deleteHolderDid(deps, userOf(request), request.params.did);
      return reply.code(204).send();
    },
  );
}
