// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are manifest variable references, not templates
import { describe, expect, it } from "vitest";
import { expandVariables } from "../../src/manifests/expand-variables.js";

describe("${NAME} in manifests", () => {
  it("takes string values from the environment, else the default, in nested values only", () => {
    const manifest = {
      spec: {
        acceptedVcts: ["${SCHEMA_REGISTRY_URL:-http://localhost:8086}/schemas/university-diploma/v1"],
        webhooks: [{ url: "http://localhost:${WEBHOOK_PORT:-4000}/webhooks", events: ["a"] }],
        roles: { issuer: true },
        sessionTtlSeconds: 300,
      },
    };
    expect(expandVariables(manifest, { SCHEMA_REGISTRY_URL: "http://localhost:18686" }, "x.yaml")).toEqual({
      spec: {
        acceptedVcts: ["http://localhost:18686/schemas/university-diploma/v1"],
        webhooks: [{ url: "http://localhost:4000/webhooks", events: ["a"] }],
        roles: { issuer: true },
        sessionTtlSeconds: 300,
      },
    });
    // An empty variable takes the default too; a value never becomes YAML structure.
    expect(expandVariables("${A:-d}", { A: "" }, "x")).toBe("d");
    expect(expandVariables("${A}", { A: "x: [1]" }, "x")).toBe("x: [1]");
  });

  it("names an unset variable without default and the document", () => {
    expect(() => expandVariables({ a: ["${MISSING_URL}"] }, {}, "walk.yaml#3")).toThrow(
      "walk.yaml#3: ${MISSING_URL} is not set (give it a default with ${MISSING_URL:-value})",
    );
  });
});
