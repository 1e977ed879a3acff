import { createHash } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";

/** Wraps node:crypto's timingSafeEqual in a spy, so the test can tell the constant-time comparison ran. */
vi.mock("node:crypto", async (importOriginal) => {
  const original = await importOriginal<typeof import("node:crypto")>();
  return { ...original, timingSafeEqual: vi.fn(original.timingSafeEqual) };
});

const crypto = await import("node:crypto");
const { apiKeyHashesMatch, generateApiKey, hashApiKey, isWellFormedApiKey } = await import("../src/domain/api-key.js");
const { authenticateApiKey } = await import("../src/domain/authenticate-api-key.js");

const format = { prefix: "attesto", environment: "production" };
const spy = vi.mocked(crypto.timingSafeEqual);

describe("API keys", () => {
  beforeEach(() => {
    spy.mockClear();
  });

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

  it("compare hashes with crypto.timingSafeEqual", () => {
    const hash = hashApiKey(generateApiKey(format));
    expect(apiKeyHashesMatch(hash, hash)).toBe(true);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(spy.mock.calls[0]?.[0]).toEqual(Buffer.from(hash, "hex"));
    expect(apiKeyHashesMatch(hash, hashApiKey("other"))).toBe(false);
    expect(spy).toHaveBeenCalledTimes(2);
    expect(apiKeyHashesMatch(hash, "not-hex")).toBe(false);
  });

  it("authenticateApiKey compares the looked-up hash in constant time", async () => {
    const apiKey = generateApiKey(format);
    const account = { tenant: "acme", status: "APPROVED" } as never;
    const tenants = { findByApiKeyHash: vi.fn(async (keyHash: string) => ({ account, keyHash })) } as never;
    const result = await authenticateApiKey({ tenants, apiKeyFormat: format }, apiKey);
    expect(result).toEqual({ outcome: "valid", account });
    expect(spy).toHaveBeenCalledWith(Buffer.from(hashApiKey(apiKey), "hex"), Buffer.from(hashApiKey(apiKey), "hex"));
  });

  it("authenticateApiKey refuses a stored hash that differs (e.g. a store matching loosely)", async () => {
    const tenants = { findByApiKeyHash: vi.fn(async () => ({ account: {}, keyHash: hashApiKey("x") })) } as never;
    expect(await authenticateApiKey({ tenants, apiKeyFormat: format }, generateApiKey(format))).toEqual({
      outcome: "invalid",
    });
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it("authenticateApiKey does not look up malformed keys", async () => {
    const findByApiKeyHash = vi.fn();
    expect(await authenticateApiKey({ tenants: { findByApiKeyHash } as never, apiKeyFormat: format }, "nope")).toEqual({
      outcome: "invalid",
    });
    expect(findByApiKeyHash).not.toHaveBeenCalled();
  });
});
