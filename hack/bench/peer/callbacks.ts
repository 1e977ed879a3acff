import { createHash, createPublicKey, type KeyObject, randomBytes, sign, verify } from "node:crypto";
import type { CallbackContext, HashAlgorithm, Jwk, JwtSigner } from "@openid4vc/oauth2";
import { decodeProtectedHeader } from "jose";

/**
 * The crypto callbacks a team would hand the OpenWallet Foundation libraries: node:crypto over
 * KeyObjects imported once (public keys cached by JWK), and a `fetch` that answers the peer's own
 * JWKS from memory (the resource server would otherwise fetch it over HTTP on every request).
 */

const sha = (alg: string) => alg.replace("-", "").toLowerCase();
export const hasher = (data: string | ArrayBuffer | Uint8Array, alg = "sha-256") =>
  new Uint8Array(
    createHash(sha(alg))
      .update(typeof data === "string" ? data : Buffer.from(data as ArrayBuffer))
      .digest(),
  );

const publicKeys = new Map<string, KeyObject>();
export function publicKeyOf(jwk: Jwk): KeyObject {
  const id = `${jwk.crv}.${jwk.x}.${jwk.y ?? ""}`;
  let key = publicKeys.get(id);
  if (!key) {
    key = createPublicKey({
      key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, ...(jwk.y ? { y: jwk.y } : {}) } as never,
      format: "jwk",
    });
    if (publicKeys.size > 4096) publicKeys.clear();
    publicKeys.set(id, key);
  }
  return key;
}

/** A raw JWS signature over `input` (ES256 as IEEE P1363, EdDSA). */
export const signRaw = (key: KeyObject, input: string) =>
  (key.asymmetricKeyType === "ed25519"
    ? sign(null, Buffer.from(input), key)
    : sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" })
  ).toString("base64url");

export const verifyRaw = (key: KeyObject, input: string, signature: string) =>
  key.asymmetricKeyType === "ed25519"
    ? verify(null, Buffer.from(input), key, Buffer.from(signature, "base64url"))
    : verify("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(signature, "base64url"));

/** A private key the peer signs with, and its public JWK. */
export interface PeerKey {
  privateKey: KeyObject;
  publicJwk: Jwk;
}

function signerJwk(signer: JwtSigner, didKeys: Map<string, Jwk>): Jwk {
  if (signer.method === "jwk") return signer.publicJwk;
  if (signer.method === "did") {
    const jwk = didKeys.get(signer.didUrl.split("#")[0]!);
    if (jwk) return jwk;
  }
  throw new Error(`signer method ${signer.method} is not supported by the peer`);
}

export function peerCallbacks(options: {
  /** Private keys by public x. */
  keys: Map<string, PeerKey>;
  /** did:key DIDs the peer signs with (its own), to their public JWK. */
  didKeys: Map<string, Jwk>;
  /** Answered from memory instead of over HTTP: URL -> JSON body. */
  local: Map<string, unknown>;
}): CallbackContext {
  return {
    clientAuthentication: () => {},
    hash: (data: Uint8Array, alg: HashAlgorithm) => hasher(data, alg),
    generateRandom: (length: number) => new Uint8Array(randomBytes(length)),
    async signJwt(signer, { header, payload }) {
      const publicJwk = signerJwk(signer, options.didKeys);
      const key = options.keys.get(publicJwk.x as string);
      if (!key) throw new Error("no private key for this signer");
      const input = `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
      return { jwt: `${input}.${signRaw(key.privateKey, input)}`, signerJwk: publicJwk };
    },
    async verifyJwt(signer, jwt) {
      try {
        const publicJwk = signerJwk(signer, options.didKeys);
        const [header, payload, signature] = jwt.compact.split(".");
        decodeProtectedHeader(jwt.compact);
        const ok = verifyRaw(publicKeyOf(publicJwk), `${header}.${payload}`, signature!);
        return ok ? { verified: true as const, signerJwk: publicJwk } : { verified: false as const };
      } catch {
        return { verified: false as const };
      }
    },
    async encryptJwe() {
      throw new Error("the peer encrypts nothing");
    },
    async decryptJwe() {
      return { decrypted: false as const };
    },
    fetch: (async (input: string | URL | Request) => {
      const url = input instanceof Request ? input.url : String(input);
      const body = options.local.get(url);
      if (body === undefined) return new Response("not found", { status: 404 });
      return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
    }) as CallbackContext["fetch"],
  };
}
