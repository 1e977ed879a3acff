import { describe, expect, it } from "vitest";
import type { PresentationUnderVerification } from "../src/domain/checks/index.js";
import { summarizePresentations } from "../src/domain/summarize-presentations.js";

const presented = (claims: Record<string, unknown>): PresentationUnderVerification =>
  ({
    queryId: "pid",
    index: 0,
    raw: "",
    query: undefined,
    format: "dc+sd-jwt",
    parsed: { claims },
    issuer: { iss: "did:example:issuer", binding: "did", signatureVerified: true },
  }) as unknown as PresentationUnderVerification;

describe("summarizePresentations", () => {
  it("merges credentials flat (the first wins a clash, nested objects merged) without writing to their claims", async () => {
    const first = { iss: "did:example:issuer", vct: "urn:a", iat: 1, address: { street: "A" }, name: "Ada" };
    const second = { vct: "urn:b", address: { street: "B", city: "C" }, name: "Bob", age: 40 };
    const before = structuredClone([first, second]);
    const summary = summarizePresentations([presented(first), presented(second)]);
    expect(summary.claims).toEqual({ address: { street: "A", city: "C" }, name: "Ada", age: 40 });
    expect([first, second]).toEqual(before);
    expect(summary.credential_metadata.map((m) => m.credential_type)).toEqual([["urn:a"], ["urn:b"]]);
  });
});
