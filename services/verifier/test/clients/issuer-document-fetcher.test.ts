import { describe, expect, it } from "vitest";
import { createIssuerDocumentFetcher } from "../../src/clients/issuer-document-fetcher.js";
import { IssuerFetchError } from "../../src/domain/upstream.js";

/** An issuer origin: counts requests, answers from `documents`, fails anything else. */
function origin() {
  const documents = new Map<string, unknown>();
  let requests = 0;
  return {
    documents,
    requests: () => requests,
    http: {
      fetchJson: async (url: string) => {
        requests++;
        if (!documents.has(url)) throw new Error("HTTP 404");
        return documents.get(url);
      },
    },
  };
}

const URL = "https://issuer.example/.well-known/jwt-vc-issuer/acme";

describe("issuer document fetcher", () => {
  it("reuses a document, refetches on refresh, and does not cache failures", async () => {
    const web = origin();
    const fetcher = createIssuerDocumentFetcher(web.http, { cacheMs: 60_000, maxEntries: 10 });
    await expect(fetcher.fetchJson(URL)).rejects.toBeInstanceOf(IssuerFetchError);
    web.documents.set(URL, { issuer: "https://issuer.example/acme", version: 1 });
    expect(await fetcher.fetchJson(URL)).toEqual({ issuer: "https://issuer.example/acme", version: 1 });
    web.documents.set(URL, { issuer: "https://issuer.example/acme", version: 2 });
    expect(await fetcher.fetchJson(URL)).toMatchObject({ version: 1 });
    expect(await fetcher.fetchJson(URL, { refresh: true })).toMatchObject({ version: 2 });
    expect(await fetcher.fetchJson(URL)).toMatchObject({ version: 2 });
    expect(web.requests()).toBe(3);
  });

  it("shares one request among concurrent fetches of a URL; cacheMs 0 never caches", async () => {
    const web = origin();
    web.documents.set(URL, { issuer: "x" });
    let calls = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const slow = {
      fetchJson: async (url: string) => {
        calls++;
        await gate;
        return web.http.fetchJson(url);
      },
    };
    const fetcher = createIssuerDocumentFetcher(slow, { cacheMs: 0, maxEntries: 10 });
    const both = Promise.all([fetcher.fetchJson(URL), fetcher.fetchJson(URL)]);
    open();
    expect(await both).toEqual([{ issuer: "x" }, { issuer: "x" }]);
    expect(calls).toBe(1);
    await fetcher.fetchJson(URL);
    expect(calls).toBe(2);
  });
});
