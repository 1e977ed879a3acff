import { describe, expect, it } from "vitest";
import { offeredClaims } from "../src/domain/authorization/offered-claims.js";

const labels = [
  { path: ["given_name"], label: "Given name" },
  { path: ["degree"], label: "Degree" },
  { path: ["degree", "type"], label: "Degree type" },
  { path: ["degree", "name"], label: "Degree title" },
  { path: ["family_name"], label: "Family name" },
];

describe("offered claims on the consent page", () => {
  it("lists only the offered claims, labelled, nested ones grouped, in the metadata's order", () => {
    expect(
      offeredClaims(
        [["family_name"], ["degree", "name"], ["degree", "type"], ["given_name"], ["place_of_birth", "locality"]],
        labels,
      ),
    ).toStrictEqual([
      { label: "Given name", parts: [] },
      {
        label: "Degree",
        parts: [
          { label: "Degree type", parts: [] },
          { label: "Degree title", parts: [] },
        ],
      },
      { label: "Family name", parts: [] },
      { label: "Place of birth", parts: [{ label: "Locality", parts: [] }] },
    ]);
  });

  it("shows keys without a label readably, and other keys (mdoc namespaces) as they are", () => {
    expect(offeredClaims([["org.iso.18013.5.1", "age_over_18"]], [])).toStrictEqual([
      { label: "org.iso.18013.5.1", parts: [{ label: "Age over 18", parts: [] }] },
    ]);
  });

  it("lists nothing for an offer without claims", () => {
    expect(offeredClaims([], labels)).toEqual([]);
  });
});
