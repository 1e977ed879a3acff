import { describe, expect, it } from "vitest";
import { appendedWellKnownUrlOf, sameIdentifier, wellKnownUrlOf } from "../../../src/domain/http/well-known.js";

describe("well-known URLs (RFC 8615 as OID4VCI 1.0 and RFC 8414 place them)", () => {
  it.each([
    ["https://host/acme", "https://host/.well-known/openid-credential-issuer/acme"],
    ["https://host/a/b/", "https://host/.well-known/openid-credential-issuer/a/b"],
    ["https://host", "https://host/.well-known/openid-credential-issuer"],
    ["https://host/", "https://host/.well-known/openid-credential-issuer"],
    ["http://localhost:8082/acme", "http://localhost:8082/.well-known/openid-credential-issuer/acme"],
  ])("%s -> %s", (identifier, url) => {
    expect(wellKnownUrlOf(identifier, "openid-credential-issuer")).toBe(url);
  });

  it("the pre-1.0 form appends the segment", () => {
    expect(appendedWellKnownUrlOf("https://host/acme/", "openid-configuration")).toBe(
      "https://host/acme/.well-known/openid-configuration",
    );
  });

  it("identifiers compare exactly but for a trailing slash", () => {
    expect(sameIdentifier("https://host/acme", "https://host/acme/")).toBe(true);
    expect(sameIdentifier("https://host/acme", "https://host/Acme")).toBe(false);
  });
});
