import { assertEd25519PublicJwk, type Ed25519PublicJwk, KeyFormatError } from "@attesto/protocol";
import { badRequest } from "@attesto/runtime/errors";

/**
 * The Ed25519 public JWK a DID is created for, from its JSON text. A JWK that carries a private
 * key (`d`) is refused outright: the ledger is public and permanent, and a caller sending one has
 * a bug that must surface, not a key we should quietly strip. Messages never echo the input.
 */
export function parsePublicJwk(json: string): Ed25519PublicJwk {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw badRequest("public_jwk_json is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badRequest("public_jwk_json must be a JSON object (a JWK)");
  }
  if ("d" in value) throw badRequest("public_jwk_json must be a public key: it contains a private key (d)");
  try {
    return assertEd25519PublicJwk(value);
  } catch (error) {
    if (error instanceof KeyFormatError) throw badRequest(`public_jwk_json: ${error.message}`, { cause: error });
    throw error;
  }
}
