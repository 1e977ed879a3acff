import { findUnstorableText } from "@attesto/runtime/errors";
import { describe, expect, it } from "vitest";

describe("findUnstorableText", () => {
  it("finds nothing in storable values of every shape", () => {
    for (const value of [
      "plain",
      "emoji 😀 (a surrogate pair)",
      "",
      42,
      null,
      undefined,
      true,
      [],
      {},
      { a: ["x", { b: "y", c: [1, 2, "😀"] }], "k😀": "v" },
    ]) {
      expect(findUnstorableText(value, "body")).toBeUndefined();
    }
  });

  it("names the first unstorable string by its path: NUL, a lone high or low surrogate", () => {
    expect(findUnstorableText("a\u0000b", "body")).toBe("body");
    expect(findUnstorableText({ name: "ok", note: "x\ud800" }, "body")).toBe("body.note");
    expect(findUnstorableText({ list: ["ok", "\udc00y"] }, "body")).toBe("body.list.1");
    expect(findUnstorableText({ a: { b: [{ c: "\u0000" }] } }, "query")).toBe("query.a.b.0.c");
    expect(findUnstorableText({ first: "\u0000", second: "\u0000" }, "body")).toBe("body.first");
  });

  it("names an unstorable key", () => {
    expect(findUnstorableText({ "bad\u0000key": "value" }, "body")).toBe("body.bad\u0000key");
    expect(findUnstorableText({ a: { "\ud800": 1 } }, "params")).toBe("params.a.\ud800");
  });

  it("stops below 32 levels of nesting", () => {
    const nested = (depth: number): unknown => (depth === 0 ? "\u0000" : { n: nested(depth - 1) });
    expect(findUnstorableText(nested(33), "body")).toBe(`body${".n".repeat(33)}`);
    expect(findUnstorableText(nested(34), "body")).toBeUndefined();
  });
});
