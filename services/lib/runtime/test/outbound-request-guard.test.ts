import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createOutboundGuard,
  isPublicAddress,
  type Lookup,
  OutboundRequestError,
  parseAllowedHost,
} from "@attesto/runtime/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

interface Target {
  port: number;
  hits: string[];
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** A local HTTP server that records every request it gets. */
async function startTarget(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Target> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? "");
    handler(req, res);
  });
  let connections = 0;
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (opened, then closed). */
async function closedPort(): Promise<number> {
  const target = await startTarget(() => {});
  await target.close();
  return target.port;
}

const failureOf = async (promise: Promise<unknown>): Promise<OutboundRequestError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundRequestError);
  return error as OutboundRequestError;
};

describe("public addresses", () => {
  it("refuses every internal range and IPv6 form of one", () => {
    for (const address of [
      "127.0.0.1",
      "127.8.9.10",
      "0.0.0.0",
      "10.0.0.1",
      "172.16.5.4",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "100.127.255.254",
      "224.0.0.1",
      "239.255.255.250",
      "255.255.255.255",
      "::",
      "::1",
      "fe80::1",
      "fe80::1%eth0",
      "febf::1",
      "fc00::1",
      "fd00::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
      "::ffff:10.0.0.1",
      "::127.0.0.1",
      "64:ff9b::a00:1",
      "2002:7f00:1::",
      "not-an-ip",
      "localhost",
    ]) {
      expect({ address, public: isPublicAddress(address) }).toEqual({ address, public: false });
    }
    for (const address of [
      "93.184.216.34",
      "8.8.8.8",
      "172.32.0.1",
      "100.128.0.1",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
    ]) {
      expect({ address, public: isPublicAddress(address) }).toEqual({ address, public: true });
    }
  });
});

describe("allowances", () => {
  it("are exact host:port entries, normalised as URLs write them", () => {
    expect(parseAllowedHost("localhost:8082")).toBe("localhost:8082");
    expect(parseAllowedHost(" LocalHost:8082 ")).toBe("localhost:8082");
    expect(parseAllowedHost("[::1]:9000")).toBe("[::1]:9000");
    expect(parseAllowedHost("127.1:80")).toBe("127.0.0.1:80");
    for (const bad of ["localhost", "http://localhost:8082", "localhost:8082/x", "host:0", "host:99999", "a b:1", ""]) {
      expect(() => parseAllowedHost(bad)).toThrow("is not host:port");
    }
  });
});

describe("the outbound request guard", () => {
  let target: Target;
  let other: Target;
  let closed: number;

  beforeAll(async () => {
    other = await startTarget((_req, res) => res.end("internal secret"));
    target = await startTarget((req, res) => {
      if (req.url === "/json") return res.writeHead(200, { "content-type": "application/json" }).end('{"a":1}');
      if (req.url === "/text") return res.end("not json");
      if (req.url === "/missing") return res.writeHead(404).end("{}");
      if (req.url === "/big") return res.end("x".repeat(4096));
      if (req.url === "/chunked-big") {
        res.write("x".repeat(800));
        res.write("x".repeat(800));
        return res.end();
      }
      if (req.url === "/hang") return;
      if (req.url === "/to-other") return res.writeHead(302, { location: `http://127.0.0.1:${other.port}/` }).end();
      if (req.url === "/to-mapped")
        return res.writeHead(302, { location: `http://[::ffff:127.0.0.1]:${other.port}/` }).end();
      if (req.url === "/to-json") return res.writeHead(301, { location: "/json" }).end();
      if (req.url === "/loop") return res.writeHead(302, { location: "/loop" }).end();
      if (req.url === "/echo") {
        let body = "";
        req.on("data", (chunk) => {
          body += chunk;
        });
        req.on("end", () => {
          res.writeHead(200, { "set-cookie": ["a=1", "b=2"] });
          res.end(
            JSON.stringify({
              method: req.method,
              body,
              agent: req.headers["user-agent"],
              extra: req.headers["x-extra"],
            }),
          );
        });
        return;
      }
      res.end("ok");
    });
    closed = await closedPort();
  });
  afterAll(async () => {
    await target.close();
    await other.close();
  });

  const allowTarget = () => createOutboundGuard({ allowHosts: [`127.0.0.1:${target.port}`], timeoutMs: 2000 });

  it("refuses loopback, link-local, private and mapped addresses the same way, open port or not", async () => {
    const guard = createOutboundGuard({ allowHttp: true });
    const refusals = [];
    for (const url of [
      `http://127.0.0.1:${target.port}/`,
      `http://127.0.0.1:${closed}/`,
      `http://[::ffff:127.0.0.1]:${target.port}/`,
      `http://[::ffff:7f00:1]:${target.port}/`,
      `http://[::1]:${target.port}/`,
      `http://2130706433:${target.port}/`, // 127.0.0.1 as one decimal number
      `http://0x7f.1:${target.port}/`,
      `http://0.0.0.0:${target.port}/`,
      "http://169.254.169.254/latest/meta-data/",
      "http://[fe80::1]/",
      "http://[fd00::1]/",
      "http://10.0.0.1/",
      "http://192.168.0.1/",
      "http://172.16.0.1/",
      "http://100.64.0.1/",
      "http://224.0.0.1/",
    ]) {
      const error = await failureOf(guard.request(url, { method: "GET" }));
      refusals.push({ url, failure: error.failure, message: error.message });
    }
    for (const refusal of refusals) {
      expect(refusal).toEqual({ url: refusal.url, failure: "refused", message: "the URL is not allowed" });
    }
    expect(target.hits).toEqual([]);
    await guard.close();
  });

  it("refuses a host name that resolves to loopback (localhost, through the system resolver)", async () => {
    const guard = createOutboundGuard({ allowHttp: true });
    const error = await failureOf(guard.request(`http://localhost:${target.port}/`, { method: "GET" }));
    expect(error.failure).toBe("refused");
    expect(error.detail).toMatch(/localhost resolves to non-public address/);
    expect(target.hits).toEqual([]);
    await guard.close();
  });

  it("refuses a name when any of its addresses is internal", async () => {
    const lookup: Lookup = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "127.0.0.1", family: 4 },
    ];
    const guard = createOutboundGuard({ allowHttp: true, lookup });
    const error = await failureOf(guard.request(`http://mixed.example:${target.port}/`, { method: "GET" }));
    expect(error.failure).toBe("refused");
    await guard.close();
  });

  it("connects to the address it checked: a DNS answer that changes afterwards (rebinding) is never used", async () => {
    let lookups = 0;
    // First answer public (passes the check), every later one loopback (the rebinding).
    const lookup: Lookup = async () => {
      lookups += 1;
      return [{ address: lookups === 1 ? "192.88.100.1" : "127.0.0.1", family: 4 }];
    };
    const guard = createOutboundGuard({ allowHttp: true, lookup, timeoutMs: 500 });
    const error = await failureOf(guard.request(`http://rebind.example:${target.port}/`, { method: "GET" }));
    // The connection went to the checked public address (unreachable here), never to loopback.
    expect(["failed", "timeout"]).toContain(error.failure);
    expect(lookups).toBe(1);
    expect(target.hits).toEqual([]);
    // A second request resolves again, gets loopback, and is refused.
    const second = await failureOf(guard.request(`http://rebind.example:${target.port}/`, { method: "GET" }));
    expect(second.failure).toBe("refused");
    expect(target.hits).toEqual([]);
    await guard.close();
  });

  it("reaches allowed host:port entries only (over http), nothing else on the same address", async () => {
    const guard = allowTarget();
    const response = await guard.request(`http://127.0.0.1:${target.port}/plain`, { method: "GET" });
    expect({ status: response.status, text: response.text }).toEqual({ status: 200, text: "ok" });
    const error = await failureOf(guard.request(`http://127.0.0.1:${other.port}/`, { method: "GET" }));
    expect(error.failure).toBe("refused");
    // The allowance is for the host as written: localhost:<port> is another entry.
    const byName = await failureOf(guard.request(`http://localhost:${target.port}/`, { method: "GET" }));
    expect(byName.failure).toBe("refused");
    expect(other.hits).toEqual([]);
    await guard.close();
  });

  it("sends method, headers and body; answers status, Fetch headers, text and URL; reuses connections", async () => {
    const guard = createOutboundGuard({ allowHosts: [`127.0.0.1:${target.port}`], userAgent: "attesto-test/1" });
    const response = await guard.request(`http://127.0.0.1:${target.port}/echo`, {
      method: "POST",
      headers: { "x-extra": "1" },
      body: "a=b",
    });
    expect(JSON.parse(response.text)).toEqual({ method: "POST", body: "a=b", agent: "attesto-test/1", extra: "1" });
    expect(response.headers.get("set-cookie")).toContain("a=1");
    expect(response.url).toBe(`http://127.0.0.1:${target.port}/echo`);
    const before = target.connections();
    for (let i = 0; i < 10; i++) await guard.request(`http://127.0.0.1:${target.port}/plain`, { method: "GET" });
    // undici may open a second connection while the first is being released; never one per call.
    expect(target.connections() - before).toBeLessThanOrEqual(2);
    await guard.close();
  });

  it("does not follow redirects of a POST (the caller gets the 3xx)", async () => {
    const guard = allowTarget();
    const response = await guard.request(`http://127.0.0.1:${target.port}/to-other`, { method: "POST", body: "" });
    expect(response.status).toBe(302);
    expect(other.hits).toEqual([]);
    await guard.close();
  });

  it("re-checks every redirect: one to an internal address is refused, an allowed one followed", async () => {
    const guard = allowTarget();
    const toOther = await failureOf(guard.request(`http://127.0.0.1:${target.port}/to-other`, { method: "GET" }));
    expect(toOther.failure).toBe("refused");
    const toMapped = await failureOf(guard.request(`http://127.0.0.1:${target.port}/to-mapped`, { method: "GET" }));
    expect(toMapped.failure).toBe("refused");
    expect(other.hits).toEqual([]);
    const followed = await guard.request(`http://127.0.0.1:${target.port}/to-json`, { method: "GET" });
    expect({ status: followed.status, url: followed.url }).toEqual({
      status: 200,
      url: `http://127.0.0.1:${target.port}/json`,
    });
    const loop = await failureOf(guard.request(`http://127.0.0.1:${target.port}/loop`, { method: "GET" }));
    expect(loop).toMatchObject({ failure: "refused", detail: "redirect (302) not followed" });
    await guard.close();
    const noRedirects = createOutboundGuard({ allowHosts: [`127.0.0.1:${target.port}`], maxRedirects: 0 });
    const refused = await failureOf(noRedirects.request(`http://127.0.0.1:${target.port}/to-json`, { method: "GET" }));
    expect(refused.failure).toBe("refused");
    await noRedirects.close();
  });

  it("uses https only, unless http is allowed or the host is an allowed one", () => {
    const strict = createOutboundGuard();
    expect(strict.checkUrl("http://issuer.example/")).toBe("must use https");
    expect(strict.checkUrl("https://issuer.example/")).toBeUndefined();
    expect(strict.checkUrl("ftp://issuer.example/")).toBe("must be an http(s) URL");
    expect(strict.checkUrl("file:///etc/passwd")).toBe("must be an http(s) URL");
    expect(strict.checkUrl("https://user:pw@issuer.example/")).toBe("must not carry credentials");
    expect(strict.checkUrl("/relative")).toBe("is not an absolute URL");
    expect(createOutboundGuard({ allowHttp: true }).checkUrl("http://issuer.example/")).toBeUndefined();
    expect(createOutboundGuard({ allowHosts: ["localhost:8082"] }).checkUrl("http://localhost:8082/x")).toBeUndefined();
    expect(createOutboundGuard({ allowHosts: ["localhost:8082"] }).checkUrl("http://localhost:8083/x")).toBe(
      "must use https",
    );
  });

  it("caps the response size, declared or streamed", async () => {
    const guard = createOutboundGuard({ allowHosts: [`127.0.0.1:${target.port}`], maxResponseBytes: 1024 });
    expect((await failureOf(guard.request(`http://127.0.0.1:${target.port}/big`, { method: "GET" }))).failure).toBe(
      "too_large",
    );
    const chunked = await failureOf(guard.request(`http://127.0.0.1:${target.port}/chunked-big`, { method: "GET" }));
    expect(chunked.failure).toBe("too_large");
    const larger = await guard.request(`http://127.0.0.1:${target.port}/big`, { method: "GET", maxBytes: 8192 });
    expect(larger.text.length).toBe(4096);
    await guard.close();
  });

  it("caps the time", async () => {
    const guard = createOutboundGuard({ allowHosts: [`127.0.0.1:${target.port}`], timeoutMs: 200 });
    const error = await failureOf(guard.request(`http://127.0.0.1:${target.port}/hang`, { method: "GET" }));
    expect(error.failure).toBe("timeout");
    await guard.close();
  });

  it("fetchJson answers the parsed body of a 2xx JSON answer, a generic error otherwise", async () => {
    const guard = allowTarget();
    expect(await guard.fetchJson(`http://127.0.0.1:${target.port}/json`)).toEqual({ a: 1 });
    const missing = await failureOf(guard.fetchJson(`http://127.0.0.1:${target.port}/missing`));
    expect({ failure: missing.failure, message: missing.message }).toEqual({
      failure: "status",
      message: "the request could not be completed",
    });
    expect((await failureOf(guard.fetchJson(`http://127.0.0.1:${target.port}/text`))).failure).toBe("not_json");
    await guard.close();
  });

  it("tells callers nothing about the network; the log gets the details without query values", async () => {
    const warnings: Array<{ details: object; message: string }> = [];
    const logger = { warn: (details: object, message: string) => warnings.push({ details, message }), debug() {} };
    const guard = createOutboundGuard({ allowHosts: [`127.0.0.1:${closed}`], logger });
    const error = await failureOf(guard.request(`http://127.0.0.1:${closed}/x?code=secret-code`, { method: "GET" }));
    expect(error.message).toBe("the request could not be completed");
    expect(error.message).not.toMatch(/ECONNREFUSED/);
    expect(error.detail).toMatch(/ECONNREFUSED/);
    expect(warnings).toEqual([
      {
        message: "outbound request failed",
        details: {
          outbound: { url: `http://127.0.0.1:${closed}/x?code=[redacted]`, failure: "failed", detail: "ECONNREFUSED" },
        },
      },
    ]);
    await guard.close();
  });

  it("allows everything internal only when told to (tests, local tooling)", async () => {
    const guard = createOutboundGuard({ allowInternal: true });
    const response = await guard.request(`http://127.0.0.1:${other.port}/`, { method: "GET" });
    expect(response.text).toBe("internal secret");
    await guard.close();
  });
});
