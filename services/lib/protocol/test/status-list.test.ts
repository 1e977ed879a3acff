import { generateKeyPairSync } from "node:crypto";
import { getListFromStatusListJWT, StatusList } from "@sd-jwt/jwt-status-list";
import { decodeProtectedHeader, exportJWK, importJWK, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import {
  compressStatusList,
  createPrivateJwkSigner,
  decompressStatusList,
  STATUS_LIST_JWT_TYP,
  StatusListError,
  setStatusAt,
  signStatusListToken,
  statusAt,
  statusListByteLength,
} from "../src/index.js";

// The draft's examples (draft-ietf-oauth-status-list, "Compressed Byte Array").
const ONE_BIT = [1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1];
const TWO_BITS = [1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3];

function bytesOf(statuses: number[], bits: 1 | 2): Uint8Array {
  const bytes = new Uint8Array(statusListByteLength(statuses.length, bits));
  for (const [index, value] of statuses.entries()) setStatusAt(bytes, index, bits, value);
  return bytes;
}

describe("status list byte array (draft bit order: least significant bit first)", () => {
  it("packs the draft's 1-bit example into 0xB9 0xA3 and compresses it as the draft does", () => {
    const bytes = bytesOf(ONE_BIT, 1);
    expect([...bytes]).toEqual([0xb9, 0xa3]);
    expect(Buffer.from(compressStatusList(bytes), "base64url").toString("hex")).toBe("78dadbb918000217015d");
  });

  it("packs the draft's 2-bit example into 0xC9 0x44 0xF9 and compresses it as the draft does", () => {
    const bytes = bytesOf(TWO_BITS, 2);
    expect([...bytes]).toEqual([0xc9, 0x44, 0xf9]);
    expect(Buffer.from(compressStatusList(bytes), "base64url").toString("hex")).toBe("78da3be9f2130003df0207");
    const decoded = decompressStatusList(compressStatusList(bytes));
    expect(TWO_BITS.map((_, index) => statusAt(decoded, index, 2))).toEqual(TWO_BITS);
  });

  it("is read the same by an independent decoder (@sd-jwt/jwt-status-list)", () => {
    const bytes = new Uint8Array(statusListByteLength(1024, 2));
    setStatusAt(bytes, 0, 2, 1);
    setStatusAt(bytes, 5, 2, 2);
    setStatusAt(bytes, 1023, 2, 1);
    const theirs = StatusList.decompressStatusList(compressStatusList(bytes), 2);
    expect([theirs.getStatus(0), theirs.getStatus(1), theirs.getStatus(5), theirs.getStatus(1023)]).toEqual([
      1, 0, 2, 1,
    ]);
  });

  it("overwrites a value without touching its neighbours", () => {
    const bytes = bytesOf([3, 3, 3, 3], 2);
    setStatusAt(bytes, 2, 2, 0);
    expect([0, 1, 2, 3].map((index) => statusAt(bytes, index, 2))).toEqual([3, 3, 0, 3]);
  });

  it("refuses indexes out of bounds, values that do not fit, and lst that is not ZLIB", () => {
    const bytes = new Uint8Array(1);
    expect(() => statusAt(bytes, 4, 2)).toThrow(StatusListError);
    expect(() => statusAt(bytes, -1, 2)).toThrow(StatusListError);
    expect(() => setStatusAt(bytes, 0, 2, 4)).toThrow(StatusListError);
    expect(() => decompressStatusList("not-zlib")).toThrow(StatusListError);
  });
});

describe("signStatusListToken", () => {
  it("signs a statuslist+jwt whose claims and list an independent decoder reads", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const privateJwk = privateKey.export({ format: "jwk" });
    const signer = createPrivateJwkSigner(privateJwk, { kid: "did:example:issuer#key-1" });
    const bytes = new Uint8Array(statusListByteLength(64, 2));
    setStatusAt(bytes, 7, 2, 2);
    const token = await signStatusListToken({
      signer,
      uri: "https://issuer.example/status-lists/acme/1",
      issuer: "https://issuer.example/acme",
      bits: 2,
      bytes,
      issuedAt: 1_700_000_000,
      expiresAt: 1_700_000_600,
      ttl: 10,
    });
    expect(decodeProtectedHeader(token)).toEqual({
      alg: "ES256",
      typ: STATUS_LIST_JWT_TYP,
      kid: "did:example:issuer#key-1",
    });
    const key = await importJWK(await exportJWK(publicKey), "ES256");
    const { payload } = await jwtVerify(token, key, {
      currentDate: new Date(1_700_000_100_000),
      typ: STATUS_LIST_JWT_TYP,
    });
    expect(payload).toMatchObject({
      sub: "https://issuer.example/status-lists/acme/1",
      iss: "https://issuer.example/acme",
      iat: 1_700_000_000,
      exp: 1_700_000_600,
      ttl: 10,
      status_list: { bits: 2 },
    });
    const list = getListFromStatusListJWT(token);
    expect([list.getStatus(6), list.getStatus(7), list.getStatus(63)]).toEqual([0, 2, 0]);
  });
});
