import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { decodeJwt, importJWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestChain, type TestChain, testRootPem } from "../../services/holder/test/support/x509-chain.js";
import { didKeyOf, type WalletKey, walletKey } from "../interop/support/keys.js";
import { type InteropPlatform, startInteropPlatform } from "../interop/support/platform.js";
import { presentSdJwtVc } from "../interop/support/sd-jwt.js";
import { applyTenant, createOffer, type Tenant } from "../interop/support/tenant.js";
import { holdCredential } from "../interop/support/wallet.js";

/**
 * The hostile cases of the real-wallet modes (issue 26), each over HTTP against the real services
 * (the all-in-one launcher: verifier, holder, trust registry, issuer):
 * - the holder as a wallet, asked by a hostile verifier (a local HTTP server serving crafted request
 *   objects; the holder trusts the test root CA for verifiers, as a wallet with a reader root
 *   installed): another certificate's hash, a SAN that does not name the host, an expired chain, an
 *   untrusted chain, an unsigned request claiming an x509 prefix;
 * - the verifier: a DC API response from an origin outside `expected_origins`, replayed, or posted
 *   to another session; a same-device `response_code` from another session.
 * Ports: offset 12110 (see test/interop/support/platform.ts for the rules).
 */
const PORT_OFFSET = 12_110;

let platform: InteropPlatform;
let attacker: Server;
let attackerUrl = "";
/** Request objects the hostile verifier serves, by id. */
const served = new Map<string, string>();

const x509Hash = (base64Der: string) =>
  createHash("sha256").update(Buffer.from(base64Der, "base64")).digest("base64url");

beforeAll(async () => {
  attacker = createServer((request, response) => {
    const jwt = served.get(request.url?.replace(/^\/request\//, "") ?? "");
    if (!jwt) return response.writeHead(404).end();
    response.writeHead(200, { "content-type": "application/oauth-authz-req+jwt" }).end(jwt);
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  const { port } = attacker.address() as { port: number };
  attackerUrl = `http://localhost:${port}`;
  platform = await startInteropPlatform({
    portOffset: PORT_OFFSET,
    label: "real_wallets",
    alsoStart: ["holder"],
    env: {
      // The wallet trusts the test root CA for verifiers (a reader root installed), and may reach the hostile verifier.
      HOLDER_VERIFIER_TRUST_ANCHORS_PEM: await testRootPem(),
      OUTBOUND_ALLOW_HOSTS: `localhost:${port}`,
    },
  });
}, 180_000);

afterAll(async () => {
  await platform?.close();
  await new Promise((resolve) => attacker?.close(resolve));
});

/** A new account on the real holder: the headers of its calls (bearer token, JSON). */
async function holderAccount(): Promise<{ headers: Record<string, string> }> {
  const holderUrl = platform.url("holder");
  const password = `password-${randomBytes(8).toString("hex")}`;
  const post = (path: string, body: unknown) =>
    fetch(`${holderUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const { uuid } = (await (await post("/v1/user/register", { password })).json()) as { uuid: string };
  const { access_token } = (await (await post("/v1/user/login", { uuid, password })).json()) as {
    access_token: string;
  };
  return { headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" } };
}

describe("the holder refuses hostile x509 verifiers (POST /v1/oid4vp/request-details)", () => {
  let headers: Record<string, string>;
  let trusted: TestChain;
  let otherTrusted: TestChain;

  beforeAll(async () => {
    ({ headers } = await holderAccount());
    trusted = await createTestChain("rp.example verifier", { dnsNames: ["localhost"] });
    otherTrusted = await createTestChain("another verifier", { dnsNames: ["localhost"] });
  });

  /**
   * A request object as the hostile verifier serves it: `clientId` in the link and the claims,
   * signed ES256 by `signer` with its x5c (or not signed at all: alg none).
   */
  async function ask(clientId: string, signer: TestChain, options: { unsigned?: boolean } = {}) {
    const id = randomBytes(8).toString("hex");
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: clientId,
      aud: "https://self-issued.me/v2",
      client_id: clientId,
      response_type: "vp_token",
      response_mode: "direct_post",
      response_uri: `${attackerUrl}/response`,
      nonce: randomBytes(16).toString("base64url"),
      state: randomBytes(16).toString("base64url"),
      dcql_query: {
        credentials: [{ id: "pid", format: "dc+sd-jwt", meta: { vct_values: ["https://example.test/pid"] } }],
      },
      iat: now,
      exp: now + 300,
    };
    const header = { alg: "ES256", typ: "oauth-authz-req+jwt", x5c: signer.x5c };
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    served.set(
      id,
      options.unsigned
        ? `${encode({ ...header, alg: "none" })}.${encode(claims)}.`
        : await new SignJWT(claims).setProtectedHeader(header).sign(await importJWK(signer.leafPrivateJwk, "ES256")),
    );
    const link = `openid4vp://?${new URLSearchParams({ client_id: clientId, request_uri: `${attackerUrl}/request/${id}` })}`;
    const response = await fetch(`${platform.url("holder")}/v1/oid4vp/request-details`, {
      method: "POST",
      headers,
      body: JSON.stringify({ authorization_request_uri: link }),
    });
    return {
      status: response.status,
      body: (await response.json()) as { error?: string; message?: string; client_id?: string },
    };
  }

  const refused = (message: string) => ({ status: 400, body: { error: "invalid_authorization_request", message } });

  it("accepts a trusted chain whose leaf the client_id names (the control case)", async () => {
    const hash = `x509_hash:${x509Hash(trusted.x5c[0] as string)}`;
    await expect(ask(hash, trusted)).resolves.toMatchObject({ status: 200, body: { client_id: hash } });
    await expect(ask("x509_san_dns:localhost", trusted)).resolves.toMatchObject({ status: 200 });
  });

  it("another certificate's hash: a trusted leaf signs, the client_id names someone else's", async () => {
    await expect(ask(`x509_hash:${x509Hash(trusted.x5c[0] as string)}`, otherTrusted)).resolves.toEqual(
      refused("the x5c leaf certificate does not match the x509_hash client_id"),
    );
  });

  it("SAN mismatch: x509_san_dns names a host the leaf does not", async () => {
    const elsewhere = await createTestChain("elsewhere", { dnsNames: ["verifier.elsewhere.example"] });
    await expect(ask("x509_san_dns:localhost", elsewhere)).resolves.toEqual(
      refused("the x5c leaf certificate has no DNS name equal to the x509_san_dns client_id"),
    );
  });

  it("an expired chain and an untrusted chain", async () => {
    const expired = await createTestChain("expired", {
      dnsNames: ["localhost"],
      leafNotAfter: new Date(Date.now() - 60_000),
    });
    await expect(ask(`x509_hash:${x509Hash(expired.x5c[0] as string)}`, expired)).resolves.toEqual(
      refused("verifier certificate (certificate_expired): the leaf certificate has expired"),
    );
    const rogue = await createTestChain("rogue", { dnsNames: ["localhost"], ownRoot: true });
    for (const clientId of [`x509_hash:${x509Hash(rogue.x5c[0] as string)}`, "x509_san_dns:localhost"]) {
      await expect(ask(clientId, rogue)).resolves.toEqual(
        refused("verifier certificate (untrusted_certificate_chain): the x5c chain does not lead to a trusted anchor"),
      );
    }
  });

  it("an unsigned request claiming an x509 prefix", async () => {
    for (const clientId of [`x509_hash:${x509Hash(trusted.x5c[0] as string)}`, "x509_san_dns:localhost"]) {
      await expect(ask(clientId, trusted, { unsigned: true })).resolves.toEqual(
        refused("the request object is not a compact JWS"),
      );
    }
  });
});

describe("the verifier refuses misdirected and replayed answers", () => {
  let tenant: Tenant;
  let credential: string;
  let holder: WalletKey;
  let vct: string;

  beforeAll(async () => {
    tenant = await applyTenant(platform, "real-wallets");
    ({ credential, holder, vct } = await holdCredential((await createOffer(platform, tenant)).deep_link));
  }, 120_000);

  const verifier = (path: string, init: RequestInit = {}) =>
    fetch(`${platform.url("verifier")}${path}`, {
      ...init,
      headers: { "content-type": "application/json", "x-api-key": tenant.apiKey, ...(init.headers ?? {}) },
    });
  const query = () => ({
    credentials: [
      { id: "credential", format: "dc+sd-jwt", meta: { vct_values: [vct] }, claims: [{ path: ["given_name"] }] },
    ],
  });
  const statusOf = async (sessionId: string) =>
    ((await (await verifier(`/v1/verifier/result/${sessionId}`)).json()) as { status: string }).status;

  /** A signed dc_api session (x509_hash) for pages of https://rp.example; its request's client_id and nonce. */
  async function dcApiSession() {
    const created = (await (
      await verifier("/v1/verifier/authorization-request", {
        method: "POST",
        body: JSON.stringify({
          dcql_query: query(),
          response_mode: "dc_api",
          client_id_prefix: "x509_hash",
          expected_origins: ["https://rp.example"],
        }),
      })
    ).json()) as { session_id: string; dc_api_request: { data: { request: string } } };
    const claims = decodeJwt(created.dc_api_request.data.request) as { client_id: string; nonce: string };
    const vp = await presentSdJwtVc(credential, { given_name: true }, holder, {
      aud: claims.client_id,
      nonce: claims.nonce,
    });
    return {
      id: created.session_id,
      answer: { protocol: "openid4vp-v1-signed", data: { vp_token: { credential: [vp] } } },
    };
  }
  const postDcApi = async (sessionId: string, answer: object, origin: string) => {
    const response = await fetch(`${platform.url("verifier")}/v1/verifier/dc-api/${sessionId}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin },
      body: JSON.stringify(answer),
    });
    return { status: response.status, body: (await response.json()) as { error?: string; error_description?: string } };
  };

  it("DC API: an origin outside expected_origins, a response posted to another session, a replay", async () => {
    const first = await dcApiSession();
    const second = await dcApiSession();
    await expect(postDcApi(first.id, first.answer, "https://evil.example")).resolves.toMatchObject({
      status: 400,
      body: { error: "invalid_request", error_description: expect.stringMatching(/expected_origins/) },
    });
    // The first session's answer (its nonce) posted to the second session.
    await expect(postDcApi(second.id, first.answer, "https://rp.example")).resolves.toMatchObject({
      status: 400,
      body: { error: "invalid_request", error_description: expect.stringMatching(/not made for this session/) },
    });
    expect([await statusOf(first.id), await statusOf(second.id)]).toEqual(["pending", "pending"]);
    await expect(postDcApi(first.id, first.answer, "https://rp.example")).resolves.toEqual({ status: 200, body: {} });
    expect(await statusOf(first.id)).toBe("completed");
    // Replayed, to the same session and to the other one.
    await expect(postDcApi(first.id, first.answer, "https://rp.example")).resolves.toMatchObject({ status: 400 });
    await expect(postDcApi(second.id, first.answer, "https://rp.example")).resolves.toMatchObject({ status: 400 });
    expect(await statusOf(second.id)).toBe("pending");
    await expect(postDcApi(second.id, second.answer, "https://rp.example")).resolves.toEqual({ status: 200, body: {} });
  });

  it("same-device: a response_code from another session does not release this session's result", async () => {
    /** An x509_hash session with a redirect, answered by the wallet: its id and the response_code of its redirect. */
    const answered = async () => {
      const created = (await (
        await verifier("/v1/verifier/authorization-request", {
          method: "POST",
          body: JSON.stringify({
            dcql_query: query(),
            client_id_prefix: "x509_hash",
            redirect_uri: "https://rp.example/back",
          }),
        })
      ).json()) as { session_id: string; request_uri: string };
      const claims = decodeJwt(await (await fetch(created.request_uri)).text()) as {
        client_id: string;
        nonce: string;
        state: string;
        response_uri: string;
      };
      const vp = await presentSdJwtVc(credential, { given_name: true }, holder, {
        aud: claims.client_id,
        nonce: claims.nonce,
      });
      const posted = await fetch(claims.response_uri, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ state: claims.state, vp_token: JSON.stringify({ credential: [vp] }) }).toString(),
      });
      const { redirect_uri } = (await posted.json()) as { redirect_uri: string };
      return { id: created.session_id, code: new URL(redirect_uri).searchParams.get("response_code") as string };
    };
    const mine = await answered();
    const theirs = await answered();
    const result = (sessionId: string, code: string) =>
      verifier(`/v1/verifier/result/${sessionId}?response_code=${encodeURIComponent(code)}`);
    const refusal = await result(mine.id, theirs.code);
    expect(refusal.status).toBe(400);
    expect(((await refusal.json()) as { message: string }).message).toMatch(
      /response_code is not valid for this session/,
    );
    const released = await result(mine.id, mine.code);
    expect(released.status).toBe(200);
    expect(((await released.json()) as { status: string }).status).toBe("completed");
    expect((await result(mine.id, mine.code)).status).toBe(400);
  });
});

describe("control: Attesto's holder presents to the real verifier's x509 sessions", () => {
  it("x509_hash and x509_san_dns sessions end completed (the holder checks the chain to the platform root)", async () => {
    const tenant = await applyTenant(platform, "real-wallets-holder");
    const { headers } = await holderAccount();
    const asHolder = (path: string, body: unknown) =>
      fetch(`${platform.url("holder")}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    const key = walletKey("EdDSA");
    const identity = { holder_did: didKeyOf(key), private_key: key.privateKey.export({ format: "jwk" }).d };
    const received = await asHolder("/v1/oid4vci/receive", {
      credential_offer_uri: (await createOffer(platform, tenant)).deep_link,
      notarize_on_ledger: false,
      ...identity,
    });
    expect(received.status, await received.clone().text()).toBe(201);
    const { credential_id, vct } = (await received.json()) as { credential_id: string; vct: string };

    for (const prefix of ["x509_hash", "x509_san_dns"] as const) {
      const created = (await (
        await fetch(`${platform.url("verifier")}/v1/verifier/authorization-request`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
          body: JSON.stringify({
            client_id_prefix: prefix,
            dcql_query: {
              credentials: [
                {
                  id: "credential",
                  format: "dc+sd-jwt",
                  meta: { vct_values: [vct] },
                  claims: [{ path: ["given_name"] }],
                },
              ],
            },
          }),
        })
      ).json()) as { session_id: string; authorization_request: string; client_id: string };
      expect(created.client_id.startsWith(`${prefix}:`)).toBe(true);
      const presented = await asHolder("/v1/oid4vp/presentation", {
        authorization_request: created.authorization_request,
        selected_credentials: [{ credential_id, query_id: "credential" }],
        ...identity,
      });
      expect(presented.status, await presented.clone().text()).toBe(200);
      const result = await fetch(`${platform.url("verifier")}/v1/verifier/result/${created.session_id}`, {
        headers: { "x-api-key": tenant.apiKey },
      });
      expect(((await result.json()) as { status: string }).status, prefix).toBe("completed");
    }
  }, 120_000);
});
