import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import type { Jwk } from "@openid4vc/oauth2";

/**
 * A wallet's key pair, made with node:crypto (no platform code): P-256 for ES256, Ed25519 for
 * EdDSA. `publicJwk` is minimal (kty, crv, x[, y]), as wallets send it.
 */
export interface WalletKey {
  alg: "ES256" | "EdDSA";
  publicJwk: Jwk;
  privateKey: KeyObject;
}

export function walletKey(alg: "ES256" | "EdDSA"): WalletKey {
  // Generated as PKCS#8 bytes and imported: a KeyObject straight from generateKeyPairSync shares
  // its lock with the generation job, and Node 20 can deadlock when GC destroys the job during a
  // JWK export of the key (generatePrivateKey in @attesto/protocol says more).
  const privateKeyEncoding = { format: "der", type: "pkcs8" } as const;
  const publicKeyEncoding = { format: "der", type: "spki" } as const;
  const der: Buffer =
    alg === "ES256"
      ? generateKeyPairSync("ec", { namedCurve: "P-256", privateKeyEncoding, publicKeyEncoding }).privateKey
      : generateKeyPairSync("ed25519", { privateKeyEncoding, publicKeyEncoding }).privateKey;
  const privateKey = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
  const publicKey = createPublicKey(privateKey);
  const { kty, crv, x, y } = publicKey.export({ format: "jwk" });
  return { alg, privateKey, publicJwk: { kty: kty!, crv, x, ...(y ? { y } : {}) } };
}

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

function base58btc(bytes: Uint8Array): string {
  let value = BigInt(`0x${Buffer.from(bytes).toString("hex") || "0"}`);
  let out = "";
  while (value > 0n) {
    out = BASE58[Number(value % 58n)]! + out;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/** did:key of an Ed25519 key (multicodec 0xed01, base58btc multibase), per the did:key method. */
export function didKeyOf(key: WalletKey): string {
  if (key.alg !== "EdDSA") throw new Error("this helper makes did:key for Ed25519 keys only");
  const raw = Buffer.from(key.publicJwk.x!, "base64url");
  return `did:key:z${base58btc(Buffer.concat([Buffer.from([0xed, 0x01]), raw]))}`;
}

/** The DID URL of a did:key's only key: `did:key:z...#z...`. */
export const didKeyUrlOf = (key: WalletKey) => {
  const did = didKeyOf(key);
  return `${did}#${did.slice("did:key:".length)}`;
};

function base58btcDecode(text: string): Uint8Array {
  let value = 0n;
  for (const char of text) {
    const digit = BASE58.indexOf(char);
    if (digit < 0) throw new Error("not base58btc");
    value = value * 58n + BigInt(digit);
  }
  const hex = value === 0n ? "" : value.toString(16);
  const bytes = Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex");
  let zeros = 0;
  while (text[zeros] === "1") zeros++;
  return Buffer.concat([Buffer.alloc(zeros), bytes]);
}

/** The public JWK of an Ed25519 did:key (or one of its DID URLs). */
export function publicJwkOfDidKey(didUrl: string): Jwk {
  const did = didUrl.split("#")[0]!;
  if (!did.startsWith("did:key:z")) throw new Error("not a base58btc did:key");
  const bytes = base58btcDecode(did.slice("did:key:z".length));
  if (bytes[0] !== 0xed || bytes[1] !== 0x01 || bytes.length !== 34) throw new Error("not an Ed25519 did:key");
  return { kty: "OKP", crv: "Ed25519", x: Buffer.from(bytes.subarray(2)).toString("base64url") };
}
