import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { getLatestCheckpoint } from "../domain/get-latest-checkpoint.js";
import type { LedgerDependencies } from "../domain/ports.js";
import { toCheckpointBody, zCheckpoint } from "./z-checkpoint.js";

const zLatestCheckpoint = z.object({
  checkpoint: zCheckpoint,
  public_jwk: z.object({
    kty: z.literal("OKP"),
    crv: z.literal("Ed25519"),
    x: z.string(),
    kid: z.string(),
    alg: z.literal("EdDSA"),
    use: z.literal("sig"),
  }),
});

/** GET /checkpoints/latest: the latest signed checkpoint and the ledger key that verifies its JWS. */
export function registerGetLatestCheckpointRoute(app: App, dependencies: LedgerDependencies): void {
  app.get("/checkpoints/latest", { schema: { response: { 200: zLatestCheckpoint } } }, async () => {
    const { checkpoint, publicJwk } = await getLatestCheckpoint(dependencies);
    return { checkpoint: toCheckpointBody(checkpoint), public_jwk: publicJwk };
  });
}
