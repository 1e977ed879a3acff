import { decodeEd25519Seed, KeyFormatError } from "@attesto/protocol";
import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { importTenantDid } from "../domain/import-did.js";
import type { TrustRegistryDependencies } from "../domain/ports.js";
import { DID_METHOD, LEDGER_DID_PREFIX } from "../domain/tenant-did.js";
import { principalOf } from "./login-token-auth.js";

const DID_MAX_LENGTH = 2048;

const requiredString = (field: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) });

const zLedgerDid = requiredString("did")
  .max(DID_MAX_LENGTH, `did must be at most ${DID_MAX_LENGTH} characters`)
  .startsWith(LEDGER_DID_PREFIX, `did must start with ${LEDGER_DID_PREFIX}`)
  // Only a did:ledger DID's id is checked here: any other DID is answered by the prefix rule alone.
  .refine(
    (did) => !did.startsWith(LEDGER_DID_PREFIX) || /^did:ledger:[A-Za-z0-9._:%-]+$/.test(did),
    "did must be a did:ledger DID (did:ledger:<id>)",
  );

/** base64url 32-byte Ed25519 seed, decoded once here. */
const zEd25519Seed = requiredString("private_key").transform((value, context) => {
  try {
    return decodeEd25519Seed(value);
  } catch (error) {
    if (!(error instanceof KeyFormatError)) throw error;
    context.addIssue({ code: "custom", message: "private_key must be a base64url Ed25519 private key (32 bytes)" });
    return z.NEVER;
  }
});

const zImportDidBody = z.object({ did: zLedgerDid, private_key: zEd25519Seed });

const zImportedDid = z.object({ did: z.string(), method: z.literal(DID_METHOD), status: z.literal("active") });

/** POST /v1/did/import (login token): takes custody of the key of an existing did:ledger DID. */
export function registerImportDidRoute(scope: App, domain: TrustRegistryDependencies): void {
  scope.post(
    "/v1/did/import",
    { schema: { body: zImportDidBody, response: { 201: zImportedDid } } },
    async (request, reply) => {
      const held = await importTenantDid(domain, principalOf(request), {
        did: request.body.did,
        seed: request.body.private_key,
      });
      reply.code(201);
      return { did: held.did, method: DID_METHOD, status: held.status };
    },
  );
}
