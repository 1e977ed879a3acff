import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { deflateSync } from "node:zlib";
import { StatusList } from "@sd-jwt/jwt-status-list";
import { describe, expect, it } from "vitest";
import {
  checkStatusListToken,
  createKeyObjectSigner,
  decodeStatusListToken,
  readCredentialStatus,
  StatusListTokenError,
  signStatusListToken,
  statusListReferenceOf,
  statusNameOf,
  statusValueAt,
} from "../src/index.js";

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
/** An (unsigned: this module does not check signatures) Status List Token. */
const token = (payload: object, header: object = { alg: "ES256", typ: "statuslist+jwt" }) =>
  `${b64(header)}.${b64(payload)}.c2lnbmF0dXJl`;
const list = (bits: number, lst: string) =>
  token({ sub: "https://issuer.example/sl/1", iat: 1_700_000_000, status_list: { bits, lst } });

/** The draft's test vectors ("Test vectors for Status List encoding"): 2^20 entries, the listed ones set. */
const LONG_1_BIT =
  "eNrt3AENwCAMAEGogklACtKQPg9LugC9k_ACvreiogEAAKkeCQAAAAAAAAAAAAAAAAAAAIBylgQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAXG9IAAAAAAAAAPwsJAAAAAAAAAAAAAAAvhsSAAAAAAAAAAAA7KpLAAAAAAAAAAAAAAAAAAAAAJsLCQAAAAAAAAAAADjelAAAAAAAAAAAKjDMAQAAAACAZC8L2AEb";
const LONG_1_BIT_SET = [0, 1993, 25460, 159495, 495669, 554353, 645645, 723232, 854545, 934534, 1000345];

describe("Token Status List reading (draft-ietf-oauth-status-list)", () => {
  it("decodes the draft's 1-bit example: 0xB9 0xA3", () => {
    const decoded = decodeStatusListToken(list(1, "eNrbuRgAAhcBXQ"));
    expect([...decoded.bytes]).toEqual([0xb9, 0xa3]);
    const expected = [1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1];
    expect(expected.map((_, idx) => statusValueAt(decoded, idx))).toEqual(expected);
  });

  it("decodes the draft's 2-bit example: 0xC9 0x44 0xF9", () => {
    const decoded = decodeStatusListToken(list(2, "eNo76fITAAPfAgc"));
    expect([...decoded.bytes]).toEqual([0xc9, 0x44, 0xf9]);
    const expected = [1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3];
    expect(expected.map((_, idx) => statusValueAt(decoded, idx))).toEqual(expected);
    expect(expected.map(statusNameOf)).toEqual([
      "invalid",
      "suspended",
      "valid",
      undefined,
      "valid",
      "invalid",
      "valid",
      "invalid",
      "invalid",
      "suspended",
      undefined,
      undefined,
    ]);
  });

  it("decodes the draft's long 1-bit test vector (2^20 entries)", () => {
    const decoded = decodeStatusListToken(list(1, LONG_1_BIT));
    expect(decoded.bytes.length).toBe(2 ** 20 / 8);
    const set: number[] = [];
    for (let idx = 0; idx < 2 ** 20; idx++) if (statusValueAt(decoded, idx) === 1) set.push(idx);
    expect(set).toEqual(LONG_1_BIT_SET);
  });

  it("agrees with the OWF @sd-jwt/jwt-status-list encoder for 1, 2, 4 and 8 bits", () => {
    for (const bits of [1, 2, 4, 8] as const) {
      const values = Array.from({ length: 64 }, (_, idx) => (idx * 7 + bits) % 2 ** bits);
      const lst = new StatusList(values, bits).compressStatusList();
      const decoded = decodeStatusListToken(list(bits, lst));
      expect(values.map((_, idx) => statusValueAt(decoded, idx))).toEqual(values);
    }
  });

  it("refuses an index beyond the list, and a list that inflates past the limit", () => {
    const decoded = decodeStatusListToken(list(1, "eNrbuRgAAhcBXQ"));
    expect(() => statusValueAt(decoded, 16)).toThrow(StatusListTokenError);
    const bomb = deflateSync(Buffer.alloc(1024 * 1024), { level: 9 }).toString("base64url");
    expect(() => decodeStatusListToken(list(1, bomb), 1024)).toThrow(/larger than this platform reads/);
  });

  it("refuses tokens that break the draft's structure", () => {
    const ok = { sub: "https://issuer.example/sl/1", iat: 1, status_list: { bits: 1, lst: "eNrbuRgAAhcBXQ" } };
    const cases: Array<[string, string]> = [
      [token(ok, { alg: "ES256", typ: "JWT" }), "typ"],
      [token({ ...ok, sub: undefined }), "no sub"],
      [token({ ...ok, iat: "yesterday" }), "iat"],
      [token({ ...ok, exp: "soon" }), "exp"],
      [token({ ...ok, ttl: 0 }), "ttl"],
      [token({ ...ok, status_list: { bits: 3, lst: "eNrbuRgAAhcBXQ" } }), "bits"],
      [token({ ...ok, status_list: { bits: 1, lst: "bm90IHpsaWI" } }), "ZLIB"],
      ["not.a-jwt", "compact JWS"],
    ];
    for (const [compact, message] of cases) {
      expect(() => decodeStatusListToken(compact), message).toThrow(message);
    }
  });

  it("checks sub against the credential's uri and exp against the (injected) time", () => {
    const decoded = decodeStatusListToken(
      token({ sub: "https://a.example/sl", iat: 100, exp: 1000, status_list: { bits: 1, lst: "eNrbuRgAAhcBXQ" } }),
    );
    const at = (seconds: number) => new Date(seconds * 1000);
    expect(() =>
      checkStatusListToken(decoded, { uri: "https://a.example/sl", now: at(900), clockSkewSeconds: 60 }),
    ).not.toThrow();
    expect(() =>
      checkStatusListToken(decoded, { uri: "https://b.example/sl", now: at(900), clockSkewSeconds: 60 }),
    ).toThrow("sub");
    expect(() =>
      checkStatusListToken(decoded, { uri: "https://a.example/sl", now: at(1060), clockSkewSeconds: 60 }),
    ).toThrow("expired");
  });

  it("reads the status_list reference of a credential", () => {
    expect(statusListReferenceOf({ iss: "x" })).toBeUndefined();
    expect(statusListReferenceOf({ status: { other: {} } })).toBeUndefined();
    expect(statusListReferenceOf({ status: { status_list: { idx: 3, uri: "https://a.example/sl" } } })).toEqual({
      idx: 3,
      uri: "https://a.example/sl",
    });
    for (const status of [
      "revoked",
      { status_list: { idx: -1, uri: "https://a.example/sl" } },
      { status_list: { idx: 1.5, uri: "https://a.example/sl" } },
      { status_list: { idx: 1, uri: "not a uri" } },
    ]) {
      expect(() => statusListReferenceOf({ status })).toThrow(StatusListTokenError);
    }
  });
});

describe("readCredentialStatus: the token's signature, verified once per token and key", () => {
  const issuer = generateKeyPairSync("ed25519");
  const other = generateKeyPairSync("ed25519");
  const jwkOf = (key: KeyObject) => key.export({ format: "jwk" }) as Record<string, unknown>;
  const uri = "https://issuer.example/status/1";
  const iss = "did:example:issuer";

  async function sourceOf() {
    const bytes = new Uint8Array(16);
    bytes[0] = 0b0000_0100; // index 1: revoked (2 bits per entry)
    const compact = await signStatusListToken({
      signer: createKeyObjectSigner(issuer.privateKey, { kid: `${iss}#key-1` }),
      uri,
      issuer: iss,
      bits: 2,
      bytes,
      issuedAt: Math.floor(Date.now() / 1000),
    });
    const decoded = decodeStatusListToken(compact);
    // One token object for every read, as a caching source hands it out.
    return { decoded, source: { get: async () => decoded } };
  }
  const read = (
    source: { get(uri: string): Promise<ReturnType<typeof decodeStatusListToken>> },
    jwk: Record<string, unknown>,
    idx = 0,
  ) =>
    readCredentialStatus({
      source,
      reference: { uri, idx },
      iss,
      keyOf: async () => ({ jwk }),
      now: new Date(),
      clockSkewSeconds: 60,
    });

  it("reads the status with the issuer's key again and again, and refuses another key after a success", async () => {
    const { source } = await sourceOf();
    expect(await read(source, jwkOf(issuer.publicKey))).toEqual({ state: "valid" });
    expect(await read(source, jwkOf(issuer.publicKey), 1)).toEqual({ state: "revoked" });
    expect(await read(source, jwkOf(other.publicKey))).toMatchObject({ state: "unknown" });
    expect(await read(source, jwkOf(issuer.publicKey))).toEqual({ state: "valid" });
  });

  it("checks a token object whose bytes changed afresh", async () => {
    const { decoded, source } = await sourceOf();
    expect(await read(source, jwkOf(issuer.publicKey))).toEqual({ state: "valid" });
    const [header, payload, signature] = decoded.compact.split(".");
    const flipped = Buffer.from(signature!, "base64url");
    flipped[0]! ^= 1;
    decoded.compact = `${header}.${payload}.${flipped.toString("base64url")}`;
    expect(await read(source, jwkOf(issuer.publicKey))).toMatchObject({ state: "unknown" });
  });
});
