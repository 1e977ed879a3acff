import type { Ed25519PublicJwk } from "@attesto/protocol";
import { z } from "zod";
import { keyIdOf } from "./ledger-did.js";

export const DID_CONTEXTS = ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"];

export const zEd25519PublicJwk = z.object({ kty: z.literal("OKP"), crv: z.literal("Ed25519"), x: z.string() });

/** A did:ledger DID document (DID Core): one JsonWebKey2020 Ed25519 key for authentication and assertions. */
export const zDidDocument = z.object({
  "@context": z.array(z.string()),
  id: z.string(),
  verificationMethod: z.array(
    z.object({
      id: z.string(),
      type: z.literal("JsonWebKey2020"),
      controller: z.string(),
      publicKeyJwk: zEd25519PublicJwk,
    }),
  ),
  authentication: z.array(z.string()),
  assertionMethod: z.array(z.string()),
});

export type DidDocument = z.infer<typeof zDidDocument>;

export function createDidDocument(did: string, publicJwk: Ed25519PublicJwk): DidDocument {
  const keyId = keyIdOf(did);
  return {
    "@context": [...DID_CONTEXTS],
    id: did,
    verificationMethod: [
      {
        id: keyId,
        type: "JsonWebKey2020",
        controller: did,
        publicKeyJwk: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x },
      },
    ],
    authentication: [keyId],
    assertionMethod: [keyId],
  };
}
