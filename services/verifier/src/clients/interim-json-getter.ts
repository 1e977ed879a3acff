import type { JsonGetter } from "./issuer-document-fetcher.js";

/**
 * INTERIM until the shared outbound request guard is wired: a GET of a JSON document with a
 * deadline, a size cap and no redirects. It does not refuse internal addresses.
 */
export function createInterimJsonGetter(defaults: { timeoutMs: number; maxBytes: number }): JsonGetter {
  return {
    async fetchJson(url, options = {}) {
      const maxBytes = options.maxBytes ?? defaults.maxBytes;
      const response = await fetch(url, {
        headers: options.headers ?? {},
        redirect: "error",
        signal: AbortSignal.timeout(options.timeoutMs ?? defaults.timeoutMs),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const text = await response.text();
      if (Buffer.byteLength(text) > maxBytes) throw new Error("response too large");
      return JSON.parse(text) as unknown;
    },
  };
}
