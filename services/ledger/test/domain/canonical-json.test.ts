import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/domain/canonical-json.js";

describe("canonicalJson (RFC 8785)", () => {
  it("sorts members recursively and drops whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [true, null], c: "x" } })).toBe('{"a":{"c":"x","d":[true,null]},"b":1}');
  });

  it("gives the same bytes whatever the key order", () => {
    expect(canonicalJson({ kind: "n", payload: { z: 1, y: 2 } })).toBe(
      canonicalJson({ payload: { y: 2, z: 1 }, kind: "n" }),
    );
  });

  it("orders keys by UTF-16 code units and escapes strings as ECMAScript does", () => {
    expect(canonicalJson({ "\u20ac": 1, "\r": 2, "1": 3, é: 4 })).toBe('{"\\r":2,"1":3,"é":4,"€":1}');
    expect(canonicalJson('line\nbreak "quoted"')).toBe('"line\\nbreak \\"quoted\\""');
  });

  it("serialises numbers like ECMAScript and refuses non-finite ones", () => {
    expect(canonicalJson([1e21, 0.000001, -0, 10])).toBe("[1e+21,0.000001,0,10]");
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
  });
});
