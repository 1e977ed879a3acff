import { describe, expect, it } from "vitest";
import { offeredClaimPaths } from "../src/domain/offered-claim-paths.js";

describe("the offer's claim paths (GrantService claim_paths)", () => {
  it("names every claim by its object keys, never its value; arrays and empty objects end a path", () => {
    expect(
      offeredClaimPaths({
        given_name: "Ada",
        degree: { type: "master", name: "MSc" },
        nationalities: ["GB", "FR"],
        extras: {},
        "org.iso.18013.5.1": { age_over_18: true, driving_privileges: [{ vehicle_category_code: "B" }] },
      }),
    ).toStrictEqual([
      ["given_name"],
      ["degree", "type"],
      ["degree", "name"],
      ["nationalities"],
      ["extras"],
      ["org.iso.18013.5.1", "age_over_18"],
      ["org.iso.18013.5.1", "driving_privileges"],
    ]);
    expect(offeredClaimPaths({})).toEqual([]);
  });
});
