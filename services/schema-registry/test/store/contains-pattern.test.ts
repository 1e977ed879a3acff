import { describe, expect, it } from "vitest";
import { containsPattern } from "../../src/store/contains-pattern.js";

describe("containsPattern", () => {
  it("wraps plain text in wildcards", () => {
    expect(containsPattern("diploma")).toBe("%diploma%");
  });

  it("escapes %, _ and backslash so they match literally", () => {
    expect(containsPattern("50%_off\\")).toBe("%50\\%\\_off\\\\%");
  });
});
