import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboundHttp, OutboundHttpError } from "../../src/clients/outbound-http.js";

/** A real HTTP server standing in for issuers and verifiers (the external edge). */
let server: Server;
let base: string;
const connections = { count: 0 };

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/echo") {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json", "set-cookie": ["a=1", "b=2"] });
        res.end(
          JSON.stringify({ method: req.method, body, agent: req.headers["user-agent"], extra: req.headers["x-extra"] }),
        );
      });
      return;
    }
    if (url.pathname === "/hop") {
      const left = Number(url.searchParams.get("left"));
      res.writeHead(302, { location: left > 0 ? `/hop?left=${left - 1}` : "/echo" });
      res.end();
      return;
    }
    if (url.pathname === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("x".repeat(5000));
      return;
    }
    if (url.pathname === "/big-chunked") {
      res.writeHead(200, { "content-type": "text/plain" });
      for (let i = 0; i < 50; i++) res.write("y".repeat(100));
      res.end();
      return;
    }
    if (url.pathname === "/never") return; // never answers
    res.writeHead(404);
    res.end();
  });
  server.on("connection", () => connections.count++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const http = (overrides: Partial<Parameters<typeof createOutboundHttp>[0]> = {}) =>
  createOutboundHttp({ timeoutMs: 2000, maxResponseBytes: 1000, httpsOnly: false, ...overrides });

describe("holder outbound HTTP (undici, keep-alive)", () => {
  it("sends method, headers and body and returns status, Fetch headers, text and URL", async () => {
    const response = await http().request(`${base}/echo`, {
      method: "POST",
      headers: { "x-extra": "1", "content-type": "application/x-www-form-urlencoded" },
      body: "a=b",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("set-cookie")).toContain("a=1");
    expect(JSON.parse(response.text)).toEqual({ method: "POST", body: "a=b", agent: "attesto-holder/0.1", extra: "1" });
    expect(response.url).toBe(`${base}/echo`);
  });

  it("reuses its connections for consecutive calls to an origin", async () => {
    const client = http();
    const before = connections.count;
    for (let i = 0; i < 20; i++) expect((await client.request(`${base}/echo`, { method: "GET" })).status).toBe(200);
    // undici may open a second connection while the first is being released; never one per call.
    expect(connections.count - before).toBeLessThanOrEqual(2);
  });

  it("follows up to three redirects for GET, not more, and never for POST", async () => {
    const followed = await http().request(`${base}/hop?left=2`, { method: "GET" });
    expect(followed.url).toBe(`${base}/echo`);
    await expect(http().request(`${base}/hop?left=3`, { method: "GET" })).rejects.toThrow("too many redirects");
    expect((await http().request(`${base}/hop?left=0`, { method: "POST" })).status).toBe(302);
  });

  it("refuses bodies beyond the limit, declared or streamed", async () => {
    await expect(http().request(`${base}/big`, { method: "GET" })).rejects.toThrow("larger than 1000 bytes");
    await expect(http().request(`${base}/big-chunked`, { method: "GET" })).rejects.toThrow("larger than 1000 bytes");
  });

  it("enforces the URL policy before any request", async () => {
    await expect(http({ httpsOnly: true }).request(`${base}/echo`, { method: "GET" })).rejects.toThrow(
      "URL must use https",
    );
    await expect(http().request("ftp://x/y", { method: "GET" })).rejects.toThrow("must be an http(s) URL");
    await expect(http().request("/relative", { method: "GET" })).rejects.toThrow("is not an absolute URL");
  });

  it("names the failure without the URL's path or query", async () => {
    const refused = await http()
      .request("http://127.0.0.1:1/secret?code=abc", { method: "GET" })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OutboundHttpError);
    expect((refused as Error).message).toBe("request to http://127.0.0.1:1 failed (ECONNREFUSED)");
    const slow = await http({ timeoutMs: 200 })
      .request(`${base}/never?code=abc`, { method: "GET" })
      .catch((error: unknown) => error);
    expect((slow as Error).message).toBe(`request to ${base} failed (timed out)`);
  });
});
