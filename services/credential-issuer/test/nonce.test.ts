import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";

describe("POST /v1/nonce", () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await issuer.close();
  });

  it("returns a fresh c_nonce, not cacheable, for any or no body", async () => {
    const requests = [
      { method: "POST" as const, url: "/v1/nonce" },
      { method: "POST" as const, url: "/v1/nonce", headers: { "content-type": "application/json" }, payload: "" },
      { method: "POST" as const, url: "/v1/nonce", payload: { anything: true } },
    ];
    const nonces = new Set<string>();
    for (const request of requests) {
      const response = await issuer.app.inject(request);
      expect(response.statusCode).toBe(200);
      expect(response.headers["cache-control"]).toBe("no-store");
      const body = response.json();
      expect(Object.keys(body)).toEqual(["c_nonce"]);
      expect(body.c_nonce).toMatch(/^[A-Za-z0-9_-]{71}$/);
      nonces.add(body.c_nonce);
    }
    expect(nonces.size).toBe(3);
  });

  it("issues nonces the credential endpoint can check without a database: HMAC-signed with an expiry", async () => {
    const { c_nonce } = (await issuer.app.inject({ method: "POST", url: "/v1/nonce" })).json();
    const { expiresAt } = issuer.deps.cNonces.verify(c_nonce);
    expect(expiresAt.getTime()).toBe(Math.floor(issuer.clock.now.getTime() / 1000) * 1000 + 300_000);
  });
});
