import { createHash, generateKeyPairSync, type KeyObject, randomUUID, sign } from "node:crypto";

/**
 * The bench client's JOSE, kept minimal so the load generator spends as little CPU as possible:
 * keys are KeyObjects made once, JWTs are assembled by hand and signed with node:crypto.
 */

export interface ClientKey {
  alg: "ES256" | "EdDSA";
  privateKey: KeyObject;
  publicJwk: { kty: string; crv: string; x: string; y?: string };
}

export function clientKey(alg: "ES256" | "EdDSA"): ClientKey {
  const { privateKey, publicKey } =
    alg === "ES256" ? generateKeyPairSync("ec", { namedCurve: "P-256" }) : generateKeyPairSync("ed25519");
  const { kty, crv, x, y } = publicKey.export({ format: "jwk" });
  return { alg, privateKey, publicJwk: { kty: kty!, crv: crv!, x: x!, ...(y ? { y } : {}) } };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A compact JWS over `header` and `payload`. */
export function signJwt(key: ClientKey, header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const input = `${b64({ ...header, alg: key.alg })}.${b64(payload)}`;
  const signature =
    key.alg === "EdDSA"
      ? sign(null, Buffer.from(input), key.privateKey)
      : sign("sha256", Buffer.from(input), { key: key.privateKey, dsaEncoding: "ieee-p1363" });
  return `${input}.${signature.toString("base64url")}`;
}

export const sha256Base64url = (text: string) => createHash("sha256").update(text).digest("base64url");

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** An RFC 9449 DPoP proof for `htm htu`, with `ath` when a token is given and the server nonce when known. */
export function dpopProof(key: ClientKey, htm: string, htu: string, options: { accessToken?: string; nonce?: string }) {
  return signJwt(
    key,
    { typ: "dpop+jwt", jwk: key.publicJwk },
    {
      jti: randomUUID(),
      htm,
      htu,
      iat: nowSeconds(),
      ...(options.accessToken ? { ath: sha256Base64url(options.accessToken) } : {}),
      ...(options.nonce ? { nonce: options.nonce } : {}),
    },
  );
}

export function decodeJwtPayload<T>(jwt: string): T {
  return JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString("utf8")) as T;
}

/** A pool of keys handed out round-robin: a fresh key per flow without paying key generation in the loop. */
export class KeyPool {
  private readonly keys: ClientKey[];
  private next = 0;

  constructor(alg: "ES256" | "EdDSA", size: number) {
    this.keys = Array.from({ length: size }, () => clientKey(alg));
  }

  take(): ClientKey {
    const key = this.keys[this.next]!;
    this.next = (this.next + 1) % this.keys.length;
    return key;
  }
}
