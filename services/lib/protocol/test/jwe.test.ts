import { CompactEncrypt, importJWK } from "jose";
import { describe, expect, it } from "vitest";
import {
  AuthorizationResponseDecryptionError,
  createResponseEncryptionKey,
  decryptAuthorizationResponse,
  encryptionKidOf,
} from "../src/index.js";

async function encrypt(payload: unknown, publicJwk: object, enc: string, kid?: string) {
  const key = await importJWK(publicJwk as never, "ECDH-ES");
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: "ECDH-ES", enc, ...(kid ? { kid } : {}) })
    .encrypt(key);
}

describe("direct_post.jwt responses", () => {
  it("creates an ephemeral P-256 key with kid, use enc and alg ECDH-ES", () => {
    const { publicJwk, privateJwk } = createResponseEncryptionKey();
    expect(publicJwk).toMatchObject({ kty: "EC", crv: "P-256", use: "enc", alg: "ECDH-ES" });
    expect(publicJwk.kid).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(privateJwk.d).toBeTruthy();
    expect(createResponseEncryptionKey().publicJwk.kid).not.toBe(publicJwk.kid);
  });

  it("decrypts A128GCM and A256GCM responses, with or without apu/apv", async () => {
    const { publicJwk, privateJwk } = createResponseEncryptionKey();
    for (const enc of ["A128GCM", "A256GCM"]) {
      const jwe = await encrypt({ vp_token: { pid: ["x~"] }, state: "s" }, publicJwk, enc, publicJwk.kid);
      expect(encryptionKidOf(jwe)).toBe(publicJwk.kid);
      await expect(decryptAuthorizationResponse(jwe, privateJwk)).resolves.toEqual({
        vp_token: { pid: ["x~"] },
        state: "s",
      });
    }
  });

  it("rejects other keys, other algorithms and garbage", async () => {
    const { publicJwk, privateJwk } = createResponseEncryptionKey();
    const other = createResponseEncryptionKey();
    const jwe = await encrypt({ state: "s" }, other.publicJwk, "A128GCM");
    await expect(decryptAuthorizationResponse(jwe, privateJwk)).rejects.toBeInstanceOf(
      AuthorizationResponseDecryptionError,
    );
    const cbc = await encrypt({ state: "s" }, publicJwk, "A128CBC-HS256");
    await expect(decryptAuthorizationResponse(cbc, privateJwk)).rejects.toThrow("could not be decrypted");
    await expect(decryptAuthorizationResponse("a.b.c", privateJwk)).rejects.toThrow("not a compact JWE");
    expect(encryptionKidOf("a.b.c.d.e")).toBeUndefined();
    const notObject = await encrypt([1], publicJwk, "A256GCM");
    await expect(decryptAuthorizationResponse(notObject, privateJwk)).rejects.toThrow("not a JSON object");
  });
});
