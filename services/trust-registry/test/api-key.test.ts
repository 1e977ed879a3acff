import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { apiKeyHashesMatch, generateApiKey, hashApiKey, isWellFormedApiKey } from "../src/domain/api-key.js";
import { authenticateApiKey } from "../src/domain/authenticate-api-key.js";

const format = { prefix: "attesto", environment: "production" };

/** The source of a domain file: constant time is a property of how the comparison is written. */
const source = (file: string) => readFileSync(new URL(`../src/domain/${file}`, import.meta.url), "utf8");

/** A tenant store double answering one hash, recording what it was asked. */
function tenantsAnswering(found: { account: unknown; keyHash: string } | undefined) {
  const asked: string[] = [];
  const tenants = {
    findByApiKeyHash: async (keyHash: string) => {
      asked.push(keyHash);
      return found;
    },
  } as never;
  return { tenants, asked };
}

describe("API keys", () => {
  it("look like <prefix>_<environment>_<48 lowercase hex> and are random", () => {
    const key = generateApiKey(format);
    expect(key).toMatch(/^attesto_production_[0-9a-f]{48}$/);
    expect(generateApiKey(format)).not.toBe(key);
    expect(generateApiKey({ prefix: "acme", environment: "staging" })).toMatch(/^acme_staging_[0-9a-f]{48}$/);
    expect(isWellFormedApiKey(key, format)).toBe(true);
    expect(isWellFormedApiKey(key, { prefix: "attesto", environment: "staging" })).toBe(false);
  });

  it("are stored as their SHA-256 (lowercase hex)", () => {
    expect(hashApiKey("attesto_production_00")).toBe(
      createHash("sha256").update("attesto_production_00").digest("hex"),
    );
  });

  it("compare hashes as 32-byte digests: equal, different, or not a digest", () => {
    const hash = hashApiKey(generateApiKey(format));
    expect(apiKeyHashesMatch(hash, hash)).toBe(true);
    expect(apiKeyHashesMatch(hash, hashApiKey("other"))).toBe(false);
    expect(apiKeyHashesMatch(hash, "not-hex")).toBe(false);
    expect(apiKeyHashesMatch(hash, hash.slice(0, 62))).toBe(false);
  });

  it("compare hashes with crypto.timingSafeEqual only, and authenticateApiKey through that comparison", () => {
    const comparison = /export function apiKeyHashesMatch[\s\S]*?\n}/.exec(source("api-key.ts"))?.[0] ?? "";
    expect(comparison).toMatch(/return timingSafeEqual\(presented, stored\);/);
    expect(comparison).not.toMatch(
      /\b(presented|stored)(Hash)?\s*[!=]==|[!=]==\s*(presented|stored)(Hash)?\b|\.equals\(|Buffer\.compare/,
    );
    expect(source("authenticate-api-key.ts")).toMatch(/apiKeyHashesMatch\(presentedHash, found\.keyHash\)/);
  });

  it("authenticateApiKey accepts the key whose hash the store holds", async () => {
    const apiKey = generateApiKey(format);
    const account = { tenant: "acme", status: "APPROVED" };
    const { tenants, asked } = tenantsAnswering({ account, keyHash: hashApiKey(apiKey) });
    expect(await authenticateApiKey({ tenants, apiKeyFormat: format }, apiKey)).toEqual({ outcome: "valid", account });
    expect(asked).toEqual([hashApiKey(apiKey)]);
  });

  it("authenticateApiKey refuses a stored hash that differs (e.g. a store matching loosely)", async () => {
    const { tenants } = tenantsAnswering({ account: {}, keyHash: hashApiKey("x") });
    expect(await authenticateApiKey({ tenants, apiKeyFormat: format }, generateApiKey(format))).toEqual({
      outcome: "invalid",
    });
  });

  it("authenticateApiKey does not look up malformed keys", async () => {
    const { tenants, asked } = tenantsAnswering(undefined);
    expect(await authenticateApiKey({ tenants, apiKeyFormat: format }, "nope")).toEqual({ outcome: "invalid" });
    expect(asked).toEqual([]);
  });
});
