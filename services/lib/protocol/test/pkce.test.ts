import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  computeS256CodeChallenge,
  createPkce,
  isPkceCodeVerifier,
  isS256CodeChallenge,
  PkceError,
  verifyPkceS256,
} from "../src/pkce/index.js";

function refusal(codeVerifier: string | undefined, codeChallenge: string): PkceError {
  try {
    verifyPkceS256({ codeVerifier, codeChallenge });
  } catch (error) {
    expect(error).toBeInstanceOf(PkceError);
    return error as PkceError;
  }
  throw new Error("expected a PkceError");
}

describe("PKCE S256 (RFC 7636)", () => {
  it("computes the RFC 7636 appendix B example", () => {
    expect(computeS256CodeChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    );
  });

  it("creates a 43-character verifier and its challenge", () => {
    const pkce = createPkce();
    expect(pkce.codeChallengeMethod).toBe("S256");
    expect(isPkceCodeVerifier(pkce.codeVerifier)).toBe(true);
    expect(pkce.codeVerifier).toHaveLength(43);
    expect(pkce.codeChallenge).toBe(createHash("sha256").update(pkce.codeVerifier).digest("base64url"));
    expect(isS256CodeChallenge(pkce.codeChallenge)).toBe(true);
  });

  it("tells S256 challenges from anything else", () => {
    expect(isS256CodeChallenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")).toBe(true);
    for (const value of ["", "short", `${"a".repeat(43)}=`, "a".repeat(44), `${"a".repeat(42)}+`, 42]) {
      expect(isS256CodeChallenge(value), String(value)).toBe(false);
    }
  });

  it("accepts the matching verifier", () => {
    const { codeVerifier, codeChallenge } = createPkce("~._-".repeat(11));
    expect(() => verifyPkceS256({ codeVerifier, codeChallenge })).not.toThrow();
  });

  it("refuses a missing, malformed or wrong verifier, each with its reason", () => {
    const { codeChallenge, codeVerifier } = createPkce();
    expect(refusal(undefined, codeChallenge)).toMatchObject({
      reason: "missing",
      message: "code_verifier is required",
    });
    expect(refusal("", codeChallenge).reason).toBe("missing");
    for (const malformed of ["a".repeat(42), "a".repeat(129), `${"a".repeat(42)}!`, `${"a".repeat(42)} `]) {
      expect(refusal(malformed, codeChallenge)).toMatchObject({
        reason: "malformed",
        message: "code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_', '~'",
      });
    }
    expect(refusal(`${codeVerifier}x`, codeChallenge)).toMatchObject({
      reason: "mismatch",
      message: "code_verifier does not match the code_challenge",
    });
    // `plain`: the challenge equal to the verifier never passes.
    expect(refusal(codeVerifier, codeVerifier).reason).toBe("mismatch");
  });
});
