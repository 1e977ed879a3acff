import { describe, expect, it } from "vitest";
import { isLedgerDid, keyIdOf, newLedgerDid, parseLedgerDid } from "../../src/domain/ledger-did.js";

describe("did:ledger identifiers", () => {
  it("are 16 random bytes in base58btc", () => {
    const dids = Array.from({ length: 200 }, () => newLedgerDid());
    for (const did of dids) {
      expect(did).toMatch(/^did:ledger:[1-9A-HJ-NP-Za-km-z]{21,22}$/);
      expect(isLedgerDid(did)).toBe(true);
    }
    expect(new Set(dids).size).toBe(dids.length);
    expect(newLedgerDid(() => new Uint8Array(16))).toBe(`did:ledger:${"1".repeat(16)}`);
  });

  it("refuse other methods, other lengths and non-canonical encodings", () => {
    expect(isLedgerDid("did:web:example.com")).toBe(false);
    expect(isLedgerDid("did:ledger:")).toBe(false);
    expect(isLedgerDid("did:ledger:abc")).toBe(false);
    expect(isLedgerDid(`did:ledger:${"z".repeat(40)}`)).toBe(false);
    expect(isLedgerDid("did:ledger:0OIl0OIl0OIl0OIl0OIl0O")).toBe(false);
    expect(() => parseLedgerDid("did:key:z6Mk")).toThrow("did must be a did:ledger DID");
    expect(() => parseLedgerDid("did:ledger:abc")).toThrow("did is not a valid did:ledger DID");
  });

  it("name their one key #key-1", () => {
    expect(keyIdOf("did:ledger:x")).toBe("did:ledger:x#key-1");
  });
});
