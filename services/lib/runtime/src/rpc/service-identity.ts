import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { generatePrivateKey } from "@attesto/protocol/generate-private-key";
import type { JSONWebKeySet, JWK } from "jose";

/**
 * Service identities: every service (and the operator) holds its own Ed25519 private key
 * (`SERVICE_IDENTITY_KEY`, a private JWK) and signs its service credentials with it; callees check
 * them against the public keys of every identity (`SERVICE_IDENTITY_PUBLIC_KEYS`, a JWK Set whose
 * `kid` is the identity's name). Public keys are not secret: knowing them lets nobody speak as
 * another service, unlike the one shared secret they replace.
 */

/** Every identity that may call an internal API: the seven services, the ledger and the operator. */
export const SERVICE_IDENTITIES = [
  "auth-server",
  "credential-issuer",
  "verifier",
  "holder",
  "trust-registry",
  "schema-registry",
  "scheduler",
  "ledger",
  "operator",
] as const;

export type ServiceIdentity = (typeof SERVICE_IDENTITIES)[number];

const isEd25519 = (jwk: Record<string, unknown>) => jwk.kty === "OKP" && jwk.crv === "Ed25519";

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what} is not valid JSON`);
  }
}

/** The Ed25519 private key of a `SERVICE_IDENTITY_KEY` value (a private JWK); throws naming the fault. */
export function parseServiceIdentityKey(text: string): KeyObject {
  const jwk = parseJson(text, "the service identity key");
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) {
    throw new Error("the service identity key must be a JWK (a JSON object)");
  }
  const fields = jwk as Record<string, unknown>;
  if (!isEd25519(fields) || typeof fields.d !== "string" || typeof fields.x !== "string") {
    throw new Error(
      'the service identity key must be an Ed25519 private JWK ({"kty":"OKP","crv":"Ed25519","x":…,"d":…})',
    );
  }
  try {
    return createPrivateKey({ key: { kty: "OKP", crv: "Ed25519", x: fields.x, d: fields.d }, format: "jwk" });
  } catch {
    throw new Error("the service identity key is not a valid Ed25519 key");
  }
}

/**
 * A `SERVICE_IDENTITY_PUBLIC_KEYS` value checked: a JWK Set of Ed25519 public keys, each with the
 * identity's name as `kid` (an identity may have several keys while one is being replaced).
 */
export function parseServiceIdentityPublicKeys(text: string): JSONWebKeySet {
  const set = parseJson(text, "the service identity public keys");
  const keys = (set as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new Error('the service identity public keys must be a JWK Set ({"keys":[…]}) with at least one key');
  }
  const checked = keys.map((key: unknown, index) => {
    const jwk = (typeof key === "object" && key !== null ? key : {}) as Record<string, unknown>;
    const where = `key ${index}${typeof jwk.kid === "string" ? ` (${jwk.kid})` : ""}`;
    if (!isEd25519(jwk) || typeof jwk.x !== "string") throw new Error(`${where} is not an Ed25519 public JWK`);
    if ("d" in jwk) throw new Error(`${where} is a private key: list public keys only`);
    if (typeof jwk.kid !== "string" || !(SERVICE_IDENTITIES as readonly string[]).includes(jwk.kid)) {
      throw new Error(`${where} needs a kid naming an identity (${SERVICE_IDENTITIES.join(", ")})`);
    }
    try {
      createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x }, format: "jwk" });
    } catch {
      throw new Error(`${where} is not a valid Ed25519 key`);
    }
    return { kty: "OKP", crv: "Ed25519", kid: jwk.kid, x: jwk.x, alg: "EdDSA", use: "sig" } satisfies JWK;
  });
  return { keys: checked };
}

/** A new Ed25519 private key as a `SERVICE_IDENTITY_KEY` value (generatePrivateKey: see its Node 20 note). */
export function generateServiceIdentityKey(): string {
  const { kty, crv, x, d } = generatePrivateKey("ed25519").export({ format: "jwk" });
  return JSON.stringify({ kty, crv, x, d });
}

/** The `SERVICE_IDENTITY_PUBLIC_KEYS` value listing the public half of each identity's private key. */
export function serviceIdentityPublicKeys(privateKeys: Partial<Record<ServiceIdentity, string>>): string {
  const keys = Object.entries(privateKeys).map(([kid, privateKey]) => {
    const { x } = createPublicKey(parseServiceIdentityKey(privateKey as string)).export({ format: "jwk" });
    return { kty: "OKP", crv: "Ed25519", kid, x };
  });
  return JSON.stringify({ keys });
}

/** A private key for each identity and the public key set naming them all (all-in-one, tests, tooling). */
export function generateServiceIdentities(names: readonly ServiceIdentity[] = SERVICE_IDENTITIES): {
  privateKeys: Record<ServiceIdentity, string>;
  publicKeys: string;
} {
  const privateKeys = Object.fromEntries(names.map((name) => [name, generateServiceIdentityKey()])) as Record<
    ServiceIdentity,
    string
  >;
  return { privateKeys, publicKeys: serviceIdentityPublicKeys(privateKeys) };
}
