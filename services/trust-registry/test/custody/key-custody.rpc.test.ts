import { keysV1 } from "@attesto/proto";
import { generateP256Jwk } from "@attesto/protocol";
import { toConnectError } from "@attesto/runtime/rpc";
import type { TestDatabase } from "@attesto/store";
import { Code, ConnectError, createClient, createRouterTransport, type Interceptor } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerKeyCustodyRpc } from "../../src/rpc/key-custody-service.rpc.js";
import { custodyDatabase, custodyOn, newKek, verifyWithCertificate, verifyWithJwk } from "./custody-test-kit.js";

/** What the service's internal server does with AppErrors (runtime's serverInterceptors). */
const mapErrors: Interceptor = (next) => async (req) => {
  try {
    return await next(req);
  } catch (error) {
    throw toConnectError(error);
  }
};

let database: TestDatabase<unknown>;
let client: ReturnType<typeof createClient<typeof keysV1.KeyCustodyService>>;

beforeAll(async () => {
  database = await custodyDatabase();
  const custody = custodyOn(database, { keyEncryptionKeys: [newKek("kek-1")] });
  const transport = createRouterTransport((router) => registerKeyCustodyRpc(router, custody), {
    router: { interceptors: [mapErrors] },
  });
  client = createClient(keysV1.KeyCustodyService, transport);
});
afterAll(() => database?.drop());

const codeOf = async (call: Promise<unknown>) =>
  ConnectError.from(
    await call.then(
      () => undefined,
      (e: unknown) => e,
    ),
  ).code;
const b64u = (value: string | Uint8Array) => Buffer.from(value).toString("base64url");

async function signedJws(tenant: string, keyId: string, header: Record<string, unknown>) {
  const signingInput = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify({ hello: "rpc" }))}`;
  const res = await client.sign({ tenant, keyId, signingInput: new TextEncoder().encode(signingInput) });
  return { jws: `${signingInput}.${b64u(res.signature)}`, alg: res.alg };
}

describe("KeyCustodyService over Connect", () => {
  it.each([
    [keysV1.KeyAlgorithm.EDDSA, "EdDSA", "OKP"],
    [keysV1.KeyAlgorithm.ES256, "ES256", "EC"],
  ] as const)("generates a key (%s) whose signatures verify", async (wireAlg, alg, kty) => {
    const generated = await client.generateKey({ tenant: "acme", alg: wireAlg });
    const publicJwk = JSON.parse(generated.publicJwkJson) as Record<string, unknown>;
    expect(publicJwk).toMatchObject({ kty });
    expect(publicJwk).not.toHaveProperty("d");
    const { jws, alg: signedAlg } = await signedJws("acme", generated.keyId, { alg });
    expect(signedAlg).toBe(wireAlg);
    await expect(verifyWithJwk(jws, publicJwk, alg)).resolves.toMatchObject({ payload: { hello: "rpc" } });
    const described = await client.describeKey({ tenant: "acme", keyId: generated.keyId });
    expect(described).toMatchObject({ keyId: generated.keyId, alg: wireAlg, x5c: [] });
    expect(JSON.parse(described.publicJwkJson)).toEqual(publicJwk);
  });

  it("imports a private JWK", async () => {
    const jwk = generateP256Jwk();
    const imported = await client.importKey({
      tenant: "acme",
      alg: keysV1.KeyAlgorithm.ES256,
      privateJwkJson: JSON.stringify(jwk),
    });
    expect(JSON.parse(imported.publicJwkJson)).toEqual({ kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y });
  });

  it("answers NOT_FOUND for another tenant's key", async () => {
    const { keyId } = await client.generateKey({ tenant: "acme", alg: keysV1.KeyAlgorithm.EDDSA });
    expect(await codeOf(client.describeKey({ tenant: "globex", keyId }))).toBe(Code.NotFound);
    expect(await codeOf(client.sign({ tenant: "globex", keyId, signingInput: new Uint8Array(1) }))).toBe(Code.NotFound);
  });

  it.each([
    ["an unspecified alg", () => client.generateKey({ tenant: "acme" })],
    ["a missing tenant", () => client.generateKey({ alg: keysV1.KeyAlgorithm.EDDSA })],
    [
      "private_jwk_json that is not JSON",
      () => client.importKey({ tenant: "acme", alg: keysV1.KeyAlgorithm.ES256, privateJwkJson: "{" }),
    ],
    [
      "private_jwk_json that is not an object",
      () => client.importKey({ tenant: "acme", alg: keysV1.KeyAlgorithm.ES256, privateJwkJson: "[]" }),
    ],
    [
      "a JWK of the wrong type",
      () =>
        client.importKey({
          tenant: "acme",
          alg: keysV1.KeyAlgorithm.EDDSA,
          privateJwkJson: JSON.stringify(generateP256Jwk()),
        }),
    ],
  ])("answers INVALID_ARGUMENT for %s", async (_, call) => {
    expect(await codeOf(call())).toBe(Code.InvalidArgument);
  });

  it("returns the tenant's signing certificate, and its chain from DescribeKey", async () => {
    const certificate = await client.getSigningCertificate({ tenant: "acme" });
    expect(certificate.x5c).toHaveLength(2);
    expect(certificate.x5c).not.toContain(certificate.trustAnchor);
    const { jws } = await signedJws("acme", certificate.keyId, { alg: "ES256", x5c: certificate.x5c });
    await expect(verifyWithCertificate(jws, certificate.x5c[0] as string)).resolves.toEqual({ hello: "rpc" });
    const described = await client.describeKey({ tenant: "acme", keyId: certificate.keyId });
    expect(described.x5c).toEqual(certificate.x5c);
    expect(JSON.parse(described.publicJwkJson)).toEqual(JSON.parse(certificate.publicJwkJson));
    await expect(client.getTrustAnchors({})).resolves.toMatchObject({ certificates: [certificate.trustAnchor] });
  });

  it("rewraps keys (nothing to do under the current KEK)", async () => {
    await expect(client.rewrapKeys({})).resolves.toMatchObject({ rewrapped: 0 });
  });
});
