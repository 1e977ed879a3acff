import { describe, expect, it, vi } from "vitest";
import type { VerificationContext } from "../src/domain/checks/index.js";
import { issuerKeyOf } from "../src/domain/issuer-key/issuer-key-of.js";

const contextWith = (resolve: () => Promise<{ found: false }>) =>
  ({ ports: { ledger: { resolve } }, now: new Date() }) as unknown as VerificationContext;

describe("issuerKeyOf", () => {
  it("looks a key up once per verification for the same iss and kid (credential, then its status list)", async () => {
    const resolve = vi.fn(async () => ({ found: false as const }));
    const context = contextWith(resolve);
    const iss = "did:ledger:abc";
    const header = { alg: "EdDSA", kid: `${iss}#key-1` };
    const first = await issuerKeyOf(header, iss, context);
    expect(await issuerKeyOf({ ...header, typ: "statuslist+jwt" }, iss, context)).toEqual(first);
    expect(resolve).toHaveBeenCalledTimes(1);
    // Another kid, or another verification, looks again.
    await issuerKeyOf({ ...header, kid: `${iss}#key-2` }, iss, context);
    expect(resolve).toHaveBeenCalledTimes(2);
    await issuerKeyOf(header, iss, contextWith(resolve));
    expect(resolve).toHaveBeenCalledTimes(3);
  });
});
