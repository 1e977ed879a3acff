import { ECDH } from "node:crypto";
import type { Ed25519PublicJwk } from "../keys/ed25519.js";
import { KeyFormatError } from "../keys/key-format-error.js";
import type { P256PublicJwk } from "../keys/p256.js";
import { base58btcDecode, base58btcEncode } from "./base58btc.js";

/** Multicodec prefixes (varint-encoded) of the key types did:key supports here. */
const ED25519_PUB = Uint8Array.of(0xed, 0x01);
const P256_PUB = Uint8Array.of(0x80, 0x24);

const startsWith = (bytes: Uint8Array, prefix: Uint8Array) => prefix.every((b, i) => bytes[i] === b);

/** The public JWK a `did:key` (Ed25519 or P-256) stands for; a DID URL fragment is ignored. */
export function publicJwkFromDidKey(did: string): Ed25519PublicJwk | P256PublicJwk {
  const identifier = did.split("#")[0] ?? "";
  if (!identifier.startsWith("did:key:z")) throw new KeyFormatError("not a base58btc did:key");
  const bytes = base58btcDecode(identifier.slice("did:key:z".length));
  if (!bytes) throw new KeyFormatError("did:key is not valid base58btc");
  if (startsWith(bytes, ED25519_PUB) && bytes.length === 34) {
    return { kty: "OKP", crv: "Ed25519", x: Buffer.from(bytes.subarray(2)).toString("base64url") };
  }
  if (startsWith(bytes, P256_PUB) && bytes.length === 35) {
    let point: Buffer;
    try {
      point = ECDH.convertKey(
        Buffer.from(bytes.subarray(2)),
        "prime256v1",
        undefined,
        undefined,
        "uncompressed",
      ) as Buffer;
    } catch {
      throw new KeyFormatError("did:key P-256 point is invalid");
    }
    return {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33, 65).toString("base64url"),
    };
  }
  throw new KeyFormatError("did:key uses an unsupported key type (Ed25519 and P-256 are supported)");
}

/** The `did:key` of an Ed25519 or P-256 public JWK. */
export function didKeyFromPublicJwk(jwk: { kty?: string; crv?: string; x?: string; y?: string }): string {
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519" && jwk.x) {
    const key = Buffer.from(jwk.x, "base64url");
    return `did:key:z${base58btcEncode(Buffer.concat([ED25519_PUB, key]))}`;
  }
  if (jwk.kty === "EC" && jwk.crv === "P-256" && jwk.x && jwk.y) {
    const uncompressed = Buffer.concat([
      Buffer.of(4),
      Buffer.from(jwk.x, "base64url"),
      Buffer.from(jwk.y, "base64url"),
    ]);
    const compressed = ECDH.convertKey(uncompressed, "prime256v1", undefined, undefined, "compressed") as Buffer;
    return `did:key:z${base58btcEncode(Buffer.concat([P256_PUB, compressed]))}`;
  }
  throw new KeyFormatError("only Ed25519 and P-256 keys have a did:key here");
}
