import { describe, expect, it } from "vitest";
import { deriveClaims } from "../../src/domain/derive-claims.js";

describe("deriveClaims", () => {
  it("makes every top-level property a claim, mandatory when required", () => {
    const schema = {
      type: "object",
      properties: { given_name: { type: "string" }, family_name: { type: "string" }, nickname: { type: "string" } },
      required: ["family_name", "given_name"],
    };
    expect(deriveClaims(schema)).toEqual([
      { path: ["given_name"], mandatory: true },
      { path: ["family_name"], mandatory: true },
      { path: ["nickname"], mandatory: false },
    ]);
  });

  it("descends into nested objects: mandatory only when every ancestor is mandatory", () => {
    const schema = {
      type: "object",
      properties: {
        degree: {
          type: "object",
          properties: { name: { type: "string" }, level: { type: "integer" } },
          required: ["name"],
        },
        address: {
          type: "object",
          properties: {
            country: { type: "string" },
            geo: { type: "object", properties: { lat: { type: "number" } }, required: ["lat"] },
          },
          required: ["country", "geo"],
        },
      },
      required: ["degree"],
    };
    expect(deriveClaims(schema)).toEqual([
      { path: ["degree"], mandatory: true },
      { path: ["degree", "name"], mandatory: true },
      { path: ["degree", "level"], mandatory: false },
      { path: ["address"], mandatory: false },
      { path: ["address", "country"], mandatory: false },
      { path: ["address", "geo"], mandatory: false },
      { path: ["address", "geo", "lat"], mandatory: false },
    ]);
  });

  it("does not descend into arrays, even arrays of objects", () => {
    const schema = {
      type: "object",
      properties: {
        driving_privileges: {
          type: "array",
          items: {
            type: "object",
            properties: { vehicle_category_code: { type: "string" } },
            required: ["vehicle_category_code"],
          },
        },
      },
      required: ["driving_privileges"],
    };
    expect(deriveClaims(schema)).toEqual([{ path: ["driving_privileges"], mandatory: true }]);
  });

  it("attaches display labels by exact path", () => {
    const schema = {
      type: "object",
      properties: { address: { type: "object", properties: { locality: { type: "string" } } } },
    };
    const labels = [
      { path: ["address", "locality"], display: [{ locale: "en-US", label: "City" }] },
      { path: ["locality"], display: [{ locale: "en-US", label: "Wrong level" }] },
    ];
    expect(deriveClaims(schema, labels)).toEqual([
      { path: ["address"], mandatory: false },
      { path: ["address", "locality"], mandatory: false, display: [{ locale: "en-US", label: "City" }] },
    ]);
  });

  it("returns no claims for a schema without properties", () => {
    expect(deriveClaims({ type: "object" })).toEqual([]);
  });
});
