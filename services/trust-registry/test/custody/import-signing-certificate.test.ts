import { createHash } from "node:crypto";
import { keysV1 } from "@attesto/proto";
import type { ServiceIdentity } from "@attesto/runtime/rpc";
import { clientInterceptors, serverInterceptors } from "@attesto/runtime/rpc";
import { testCredentialSigner, testCredentialVerifier } from "@attesto/runtime/testing";
import type { TestDatabase } from "@attesto/store";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyCustody } from "../../src/custody/index.js";
import { registerKeyCustodyRpc } from "../../src/rpc/key-custody-service.rpc.js";
import { custodyDatabase, custodyOn, issuerOf, newKek, verifyWithCertificate, x509 } from "./custody-test-kit.js";
import { base64, createTenantChain, type TenantChain } from "./tenant-chain-kit.js";

const DAY = 86_400_000;
const silentLogger = {
  error() {},
  warn() {},
  info() {},
  debug() {},
  trace() {},
  fatal() {},
  child: () => silentLogger,
  level: "silent",
  silent() {},
} as never;

let database: TestDatabase<unknown>;
let custody: KeyCustody;
let clock = Date.now();
let chain: TenantChain;
const kek = newKek("kek-1");

/** KeyCustodyService behind the real service-credential check, called as `caller`. */
function clientAs(caller: ServiceIdentity) {
  const transport = createRouterTransport((router) => registerKeyCustodyRpc(router, custody), {
    router: {
      interceptors: serverInterceptors(testCredentialVerifier("trust-registry"), silentLogger),
    },
    transport: {
      interceptors: clientInterceptors({
        signer: testCredentialSigner(caller),
        audience: "trust-registry",
        retries: 0,
      }),
    },
  });
  return createClient(keysV1.KeyCustodyService, transport);
}

const operator = () => clientAs("operator");
const issuer = () => clientAs("credential-issuer");

const failureOf = async (call: Promise<unknown>) => {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!error) throw new Error("the call succeeded");
  const connect = ConnectError.from(error);
  return { code: connect.code, message: connect.rawMessage };
};

const countKeys = async (tenant: string) => {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(
    `${database.schema}.custody_keys`,
  )} WHERE tenant = ${tenant}`.execute(database.db);
  return rows[0]?.n;
};

const b64u = (value: string | Uint8Array) => Buffer.from(value).toString("base64url");

beforeAll(async () => {
  database = await custodyDatabase();
  custody = custodyOn(database, { keyEncryptionKeys: [kek], now: () => new Date(clock) });
  chain = await createTenantChain("Acme University", { issuer: issuerOf("acme") });
});
afterAll(() => database?.drop());

describe("ImportSigningCertificate", () => {
  it("holds the tenant's chain and key: GetSigningCertificate returns them and signatures verify with the leaf", async () => {
    const platformIssued = await issuer().getSigningCertificate({ tenant: "acme" });
    const imported = await operator().importSigningCertificate({
      tenant: "acme",
      chain: [chain.leaf, chain.intermediate, chain.root],
      privateKeyPem: chain.leafKeyPem,
    });
    expect(imported).toMatchObject({
      changed: true,
      x5c: [base64(chain.leaf), base64(chain.intermediate)],
      fingerprint: createHash("sha256").update(chain.leaf).digest("hex"),
    });
    const leaf = new x509.X509Certificate(chain.leaf);
    expect(imported.notAfter && timestampDate(imported.notAfter).getTime()).toBe(leaf.notAfter.getTime());

    const current = await issuer().getSigningCertificate({ tenant: "acme" });
    expect(current.keyId).toBe(imported.keyId);
    expect(current.keyId).not.toBe(platformIssued.keyId);
    expect(current.x5c).toEqual([base64(chain.leaf), base64(chain.intermediate)]);
    expect(current.trustAnchor).toBe(base64(chain.root));
    expect(JSON.parse(current.publicJwkJson)).toMatchObject({ kty: "EC", crv: "P-256" });

    const signingInput = `${b64u(JSON.stringify({ alg: "ES256" }))}.${b64u(JSON.stringify({ hello: "x5c" }))}`;
    const { signature } = await issuer().sign({
      tenant: "acme",
      keyId: current.keyId,
      signingInput: new TextEncoder().encode(signingInput),
    });
    await expect(verifyWithCertificate(`${signingInput}.${b64u(signature)}`, base64(chain.leaf))).resolves.toEqual({
      hello: "x5c",
    });
    const described = await operator().describeKey({ tenant: "acme", keyId: current.keyId });
    expect(described.x5c).toEqual(current.x5c);
  });

  it("is idempotent: the same chain and key again change nothing", async () => {
    const keysBefore = await countKeys("acme");
    const first = await issuer().getSigningCertificate({ tenant: "acme" });
    const again = await operator().importSigningCertificate({
      tenant: "acme",
      chain: [chain.leaf, chain.intermediate, chain.root],
      privateKeyPem: chain.leafKeySec1Pem ?? "",
    });
    expect(again).toMatchObject({ changed: false, keyId: first.keyId });
    expect(await countKeys("acme")).toBe(keysBefore);
  });

  it("keeps the private key sealed: the stored row holds no PKCS#8 of it", async () => {
    const { keyId } = await issuer().getSigningCertificate({ tenant: "acme" });
    const { rows } = await sql<{ sealed_private_key: string }>`SELECT sealed_private_key FROM ${sql.table(
      `${database.schema}.custody_keys`,
    )} WHERE key_id = ${keyId}`.execute(database.db);
    const pkcs8 = Buffer.from(chain.leafKeyPem.replace(/-----[A-Z ]+-----|\s/g, ""), "base64");
    const ciphertext = Buffer.from(rows[0]?.sealed_private_key.split(".")[3] ?? "", "base64url");
    expect(ciphertext.length).toBeGreaterThan(pkcs8.length);
    expect(ciphertext.includes(pkcs8.subarray(-32))).toBe(false);
  });

  it("takes a chain without a root (nothing excluded, no trust anchor) and replaces the previous import", async () => {
    const other = await createTenantChain("Globex", { issuer: issuerOf("globex") });
    const imported = await operator().importSigningCertificate({
      tenant: "globex",
      chain: [other.leaf, other.intermediate],
      privateKeyPem: other.leafKeyPem,
    });
    const current = await issuer().getSigningCertificate({ tenant: "globex" });
    expect(current).toMatchObject({ keyId: imported.keyId, trustAnchor: "" });
    expect(current.x5c).toEqual([base64(other.leaf), base64(other.intermediate)]);

    const renewed = await createTenantChain("Globex", { issuer: issuerOf("globex") });
    const replaced = await operator().importSigningCertificate({
      tenant: "globex",
      chain: [renewed.leaf, renewed.intermediate, renewed.root],
      privateKeyPem: renewed.leafKeyPem,
    });
    expect(replaced.changed).toBe(true);
    expect(replaced.keyId).not.toBe(imported.keyId);
    expect((await issuer().getSigningCertificate({ tenant: "globex" })).x5c[0]).toBe(base64(renewed.leaf));
  });

  it("keeps tenants apart: one tenant's import changes nothing for another, and its key is not another's", async () => {
    const acme = await issuer().getSigningCertificate({ tenant: "acme" });
    const initech = await issuer().getSigningCertificate({ tenant: "initech" });
    expect(initech.x5c[0]).not.toBe(acme.x5c[0]);
    expect(initech.x5c).toHaveLength(2);
    const failure = await failureOf(
      issuer().sign({ tenant: "initech", keyId: acme.keyId, signingInput: new Uint8Array([1]) }),
    );
    expect(failure.code).toBe(Code.NotFound);
  });

  it("is for the operator only", async () => {
    const request = { tenant: "acme", chain: [chain.leaf], privateKeyPem: chain.leafKeyPem };
    expect(await failureOf(issuer().importSigningCertificate(request))).toEqual({
      code: Code.PermissionDenied,
      message: "attesto.keys.v1.KeyCustodyService/ImportSigningCertificate may not be called by 'credential-issuer'",
    });
    expect((await failureOf(issuer().clearSigningCertificate({ tenant: "acme" }))).code).toBe(Code.PermissionDenied);
  });

  it("answers INVALID_ARGUMENT naming the fault", async () => {
    const p384 = await createTenantChain("P384", { issuer: issuerOf("acme"), leafAlg: "P-384" });
    const noSignature = await createTenantChain("NoSig", {
      issuer: issuerOf("acme"),
      leafKeyUsage: x509.KeyUsageFlags.keyEncipherment,
    });
    const expired = await createTenantChain("Old", { issuer: issuerOf("acme"), expired: true });
    const stranger = await createTenantChain("Stranger", { issuer: issuerOf("acme") });
    const cases: Array<[string, Uint8Array[], string, RegExp]> = [
      ["empty chain", [], chain.leafKeyPem, /chain is required/],
      ["not DER", [new Uint8Array([1, 2, 3])], chain.leafKeyPem, /chain\[0\] is not a DER X\.509 certificate/],
      ["P-384 leaf", [p384.leaf, p384.intermediate], p384.leafKeyPem, /not P-256/],
      ["keyUsage", [noSignature.leaf, noSignature.intermediate], noSignature.leafKeyPem, /digitalSignature/],
      ["expired", [expired.leaf, expired.intermediate], expired.leafKeyPem, /chain\[0\] expired at/],
      ["wrong order", [chain.intermediate, chain.leaf], chain.leafKeyPem, /not P-256|not a CA|not issued by/],
      [
        "foreign issuer",
        [chain.leaf, stranger.intermediate],
        chain.leafKeyPem,
        /chain\[0\] is not issued by chain\[1\]/,
      ],
      ["leaf as issuer", [chain.leaf, chain.leaf], chain.leafKeyPem, /chain\[1\] is not a CA certificate/],
      ["other key", [chain.leaf, chain.intermediate], stranger.leafKeyPem, /does not match the leaf/],
      ["no PEM", [chain.leaf], "not a key", /private_key_pem is not a PEM private key/],
      [
        "bad PEM",
        [chain.leaf],
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        /unencrypted PKCS#8 or SEC1/,
      ],
    ];
    for (const [, certificates, privateKeyPem, message] of cases) {
      const failure = await failureOf(
        operator().importSigningCertificate({ tenant: "acme", chain: certificates, privateKeyPem }),
      );
      expect(failure.code).toBe(Code.InvalidArgument);
      expect(failure.message).toMatch(message);
    }
    // Nothing of that reached the tenant's certificate.
    expect((await issuer().getSigningCertificate({ tenant: "acme" })).x5c[0]).toBe(base64(chain.leaf));
    const reserved = await failureOf(
      operator().importSigningCertificate({ tenant: "platform:ca", chain: [chain.leaf], privateKeyPem: "" }),
    );
    expect(reserved.code).toBe(Code.InvalidArgument);
  });
});

describe("the leaf must name the tenant's iss", () => {
  const nameFailureOf = async (tenant: string, leaf: TenantChain) => {
    const error = await operator()
      .importSigningCertificate({ tenant, chain: [leaf.leaf, leaf.intermediate], privateKeyPem: leaf.leafKeyPem })
      .then(
        () => undefined,
        (e: unknown) => ConnectError.from(e),
      );
    if (!error) throw new Error("the import succeeded");
    return { code: error.code, errorCode: error.metadata.get("attesto-error-code"), message: error.rawMessage };
  };

  it("refuses a leaf without subjectAltName, with another tenant's iss, or with only the host (INVALID_ARGUMENT)", async () => {
    const before = await issuer().getSigningCertificate({ tenant: "acme" });
    const cases: Array<[TenantChain, string]> = [
      [await createTenantChain("No SAN"), "it has no subjectAltName"],
      [
        await createTenantChain("Globex for Acme", { issuer: issuerOf("globex") }),
        `it has url:${issuerOf("globex")}, dns:issuer.example`,
      ],
      [
        await createTenantChain("Host only", { subjectAltNames: [{ type: "dns", value: "issuer.example" }] }),
        "it has dns:issuer.example",
      ],
      [
        await createTenantChain("Trailing slash", {
          subjectAltNames: [{ type: "url", value: `${issuerOf("acme")}/` }],
        }),
        `it has url:${issuerOf("acme")}/`,
      ],
    ];
    for (const [leaf, found] of cases) {
      expect(await nameFailureOf("acme", leaf)).toEqual({
        code: Code.InvalidArgument,
        errorCode: "certificate_name_mismatch",
        message: `the leaf certificate's subjectAltName must contain the tenant's credential issuer identifier as a URI (URI:${issuerOf("acme")}; HAIP verifiers also match DNS:issuer.example); ${found}`,
      });
    }
    // Nothing was held: the tenant still signs with what it had.
    expect((await issuer().getSigningCertificate({ tenant: "acme" })).keyId).toBe(before.keyId);
  });

  it("refuses to sign with a stored import that no longer names the tenant's iss (FAILED_PRECONDITION)", async () => {
    const leaf = await createTenantChain("Initrode", { issuer: issuerOf("initrode") });
    await operator().importSigningCertificate({
      tenant: "initrode",
      chain: [leaf.leaf, leaf.intermediate],
      privateKeyPem: leaf.leafKeyPem,
    });
    // The credential issuer moved: the tenant's iss is now another URL than the leaf names.
    const moved = custodyOn(database, { keyEncryptionKeys: [kek], credentialIssuerUrl: "https://new-issuer.example" });
    const failure = await moved.signingCertificate("initrode").then(
      () => undefined,
      (e: unknown) => e as { status: number; code: string; message: string },
    );
    expect(failure).toMatchObject({ status: 410, code: "certificate_name_mismatch" });
    expect(failure?.message).toContain("URI:https://new-issuer.example/initrode");
  });
});

describe("ClearSigningCertificate", () => {
  it("goes back to the platform-issued certificate; clearing again changes nothing", async () => {
    const imported = await issuer().getSigningCertificate({ tenant: "acme" });
    await expect(operator().clearSigningCertificate({ tenant: "acme" })).resolves.toMatchObject({ cleared: true });
    const platform = await issuer().getSigningCertificate({ tenant: "acme" });
    expect(platform.keyId).not.toBe(imported.keyId);
    expect(platform.x5c).toHaveLength(2);
    expect(platform.trustAnchor).toBe((await clientAs("verifier").getTrustAnchors({})).certificates[0]);
    await expect(operator().clearSigningCertificate({ tenant: "acme" })).resolves.toMatchObject({ cleared: false });
    expect((await issuer().getSigningCertificate({ tenant: "acme" })).keyId).toBe(platform.keyId);
  });
});

describe("an imported certificate past its notAfter", () => {
  it("is refused by GetSigningCertificate (FAILED_PRECONDITION) instead of signing with it", async () => {
    const shortLived = await createTenantChain("Hooli", { issuer: issuerOf("hooli") });
    await operator().importSigningCertificate({
      tenant: "hooli",
      chain: [shortLived.leaf, shortLived.intermediate],
      privateKeyPem: shortLived.leafKeyPem,
    });
    clock += 120 * DAY;
    try {
      const failure = await failureOf(issuer().getSigningCertificate({ tenant: "hooli" }));
      expect(failure.code).toBe(Code.FailedPrecondition);
      expect(failure.message).toMatch(/imported signing certificate expired at/);
    } finally {
      clock -= 120 * DAY;
    }
  });
});
