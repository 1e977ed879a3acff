import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyTenant, createOffer } from "./support/flows.js";
import { type HttpResult, postJson } from "./support/http.js";
import { startTestPlatform, type TestPlatform } from "./support/platform.js";

/**
 * Server-side request forgery through the holder: any self-registered holder account hands the
 * holder URLs to fetch (offers, request objects, issuer metadata). None of them may reach an
 * internal address (loopback, link-local with the cloud metadata service, private, IPv4-mapped
 * IPv6, a name resolving to loopback, a redirect to one), and the answer must not tell an open
 * internal port from a closed one. The platform's own public services stay reachable (the
 * all-in-one's allowance), so a real offer still resolves.
 */
const PORT_OFFSET = 22_170;
/** Public ports of the all-in-one are allowed; its internal (Connect) ports never are. */
const TRUST_REGISTRY_INTERNAL_PORT = 9085 + PORT_OFFSET;

interface Listening {
  server: Server;
  port: number;
  hits: string[];
}

async function listenOnLoopback(handler: (url: string) => { status: number; location?: string }): Promise<Listening> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    const { status, location } = handler(req.url ?? "");
    res.writeHead(status, location ? { location } : { "content-type": "application/json" });
    res.end(status === 200 ? "{}" : "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

async function closedPort(): Promise<number> {
  const probe = await listenOnLoopback(() => ({ status: 200 }));
  await new Promise<void>((resolve) => probe.server.close(() => resolve()));
  return probe.port;
}

describe("SSRF through the holder", () => {
  let platform: TestPlatform;
  let canary: Listening;
  let redirector: Listening;
  let closed: number;
  let holderHeaders: Record<string, string>;

  beforeAll(async () => {
    // An internal service the holder must never reach: it records every request it gets.
    canary = await listenOnLoopback(() => ({ status: 200 }));
    closed = await closedPort();
    // A party the operator did allow (OUTBOUND_ALLOW_HOSTS) that redirects to internal addresses.
    redirector = await listenOnLoopback((url) => ({
      status: 302,
      location: url.startsWith("/to-localhost")
        ? `http://localhost:${TRUST_REGISTRY_INTERNAL_PORT}/`
        : `http://127.0.0.1:${canary.port}/stolen`,
    }));
    platform = await startTestPlatform({
      portOffset: PORT_OFFSET,
      label: "hostile_ssrf",
      // http allowed everywhere, so that what refuses these URLs is their address, not their scheme.
      env: { OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${redirector.port}`, OUTBOUND_ALLOW_HTTP: "true" },
    });
    const password = "Ssrf-Passw0rd-long";
    const registered = await postJson(`${platform.url.holder}/v1/user/register`, { password });
    expect(registered.status).toBe(201);
    const { uuid } = registered.json as { uuid: string };
    const login = await postJson(`${platform.url.holder}/v1/user/login`, { uuid, password });
    expect(login.status).toBe(200);
    holderHeaders = { authorization: `Bearer ${(login.json as { access_token: string }).access_token}` };
  });
  afterAll(async () => {
    await platform?.close();
    for (const listening of [canary, redirector]) {
      await new Promise<void>((resolve) => (listening ? listening.server.close(() => resolve()) : resolve()));
    }
  });

  const offerDetails = (link: string) =>
    postJson(`${platform.url.holder}/v1/oid4vci/offer-details`, { credential_offer_uri: link }, holderHeaders);
  const requestDetails = (link: string) =>
    postJson(`${platform.url.holder}/v1/oid4vp/request-details`, { authorization_request_uri: link }, holderHeaders);
  const byReference = (uri: string) => `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(uri)}`;
  const byValue = (issuer: string) =>
    `openid-credential-offer://?credential_offer=${encodeURIComponent(
      JSON.stringify({
        credential_issuer: issuer,
        credential_configuration_ids: ["employee-badge"],
        grants: { "urn:ietf:params:oauth:grant-type:pre-authorized_code": { "pre-authorized_code": "x" } },
      }),
    )}`;
  const answer = (result: HttpResult) => ({ status: result.status, body: result.json });

  it("credential_offer_uri to an open and a closed loopback port get the same generic answer", async () => {
    const open = await offerDetails(byReference(`http://127.0.0.1:${canary.port}/offer`));
    const shut = await offerDetails(byReference(`http://127.0.0.1:${closed}/offer`));
    expect(answer(open)).toEqual({
      status: 400,
      body: { error: "invalid_offer", message: "credential offer could not be fetched" },
    });
    expect(answer(shut)).toEqual(answer(open));
    expect(canary.hits).toEqual([]);
  });

  it("every internal form of an offer URI is refused with that same answer, without a request", async () => {
    const generic = { status: 400, body: { error: "invalid_offer", message: "credential offer could not be fetched" } };
    for (const uri of [
      "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
      `https://127.0.0.1:${canary.port}/offer`,
      `http://[::ffff:127.0.0.1]:${canary.port}/offer`,
      `http://[::ffff:7f00:1]:${canary.port}/offer`,
      `http://[::1]:${canary.port}/offer`,
      `http://2130706433:${canary.port}/offer`,
      `http://0.0.0.0:${canary.port}/offer`,
      `http://localhost:${canary.port}/offer`,
      `http://localhost:${TRUST_REGISTRY_INTERNAL_PORT}/offer`,
      `http://10.0.0.1/offer`,
      `http://[fd00::1]/offer`,
    ]) {
      expect({ uri, ...answer(await offerDetails(byReference(uri))) }).toEqual({ uri, ...generic });
    }
    expect(canary.hits).toEqual([]);
  });

  it("a redirect from an allowed party to loopback is checked again and refused", async () => {
    const generic = { status: 400, body: { error: "invalid_offer", message: "credential offer could not be fetched" } };
    expect(answer(await offerDetails(byReference(`http://127.0.0.1:${redirector.port}/offer`)))).toEqual(generic);
    expect(answer(await offerDetails(byReference(`http://127.0.0.1:${redirector.port}/to-localhost`)))).toEqual(
      generic,
    );
    expect(redirector.hits).toEqual(["/offer", "/to-localhost"]);
    expect(canary.hits).toEqual([]);
  });

  it("an offer by value whose credential_issuer is internal: its metadata is not fetched", async () => {
    for (const issuer of [
      `http://127.0.0.1:${canary.port}`,
      "http://169.254.169.254",
      `http://[::ffff:127.0.0.1]:${canary.port}`,
    ]) {
      const result = await offerDetails(byValue(issuer));
      expect({ issuer, ...answer(result) }).toEqual({
        issuer,
        status: 400,
        body: { error: "invalid_offer", message: "credential issuer metadata could not be fetched" },
      });
    }
    expect(canary.hits).toEqual([]);
  });

  it("request-details with an internal request_uri (open or closed port, metadata service) answers alike", async () => {
    const answers = [];
    for (const requestUri of [
      `http://127.0.0.1:${canary.port}/request`,
      `http://127.0.0.1:${closed}/request`,
      "http://169.254.169.254/latest/meta-data/",
      `http://[::ffff:127.0.0.1]:${canary.port}/request`,
      `http://localhost:${TRUST_REGISTRY_INTERNAL_PORT}/request`,
      `http://127.0.0.1:${redirector.port}/request`,
    ]) {
      const link = `openid4vp://?client_id=${encodeURIComponent("x509_san_dns:rp.example")}&request_uri=${encodeURIComponent(requestUri)}`;
      answers.push({ requestUri, ...answer(await requestDetails(link)) });
    }
    for (const entry of answers) {
      expect(entry).toEqual({
        requestUri: entry.requestUri,
        status: 400,
        body: { error: "invalid_authorization_request", message: "request object could not be fetched" },
      });
    }
    expect(canary.hits).toEqual([]);
  });

  it("the platform's own issuer (an allowed loopback origin) is still reachable: a real offer resolves", async () => {
    const tenant = await applyTenant(platform.url);
    const offer = await createOffer(platform.url, tenant.apiKey);
    const result = await offerDetails(offer.deep_link);
    expect(result.status).toBe(200);
  });
});
