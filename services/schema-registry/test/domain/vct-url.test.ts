import { describe, expect, it } from "vitest";
import { createVctUrl, parseVctUrl } from "../../src/domain/vct-url.js";

const registry = "https://schemas.example.com";

describe("vct URLs", () => {
  it("are <registry>/schemas/<type>/<version>, with segments URL-encoded", () => {
    expect(createVctUrl(registry, { type: "university-diploma", version: "v1" })).toBe(
      "https://schemas.example.com/schemas/university-diploma/v1",
    );
    expect(createVctUrl(registry, { type: "a b", version: "v/1" })).toBe(
      "https://schemas.example.com/schemas/a%20b/v%2F1",
    );
  });

  it("parse back to type and version", () => {
    expect(parseVctUrl(registry, "https://schemas.example.com/schemas/university-diploma/v1")).toEqual({
      type: "university-diploma",
      version: "v1",
    });
    expect(parseVctUrl(registry, "https://schemas.example.com/schemas/a%20b/v%2F1")).toEqual({
      type: "a b",
      version: "v/1",
    });
  });

  it("are not recognised from another registry or with the wrong shape", () => {
    expect(parseVctUrl(registry, "https://evil.example.com/schemas/university-diploma/v1")).toBeUndefined();
    expect(parseVctUrl(registry, "https://schemas.example.com.evil.com/schemas/x/v1")).toBeUndefined();
    expect(parseVctUrl(registry, "https://schemas.example.com/schemas/university-diploma")).toBeUndefined();
    expect(parseVctUrl(registry, "https://schemas.example.com/schemas/university-diploma/v1/extra")).toBeUndefined();
    expect(parseVctUrl(registry, "https://schemas.example.com/schemas//v1")).toBeUndefined();
    expect(parseVctUrl(registry, "https://schemas.example.com/schemas/%E0%A4%A/v1")).toBeUndefined();
  });
});
