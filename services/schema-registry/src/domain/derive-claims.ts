import type { ClaimDisplay, ClaimLabel } from "./credential-type.js";
import type { JsonObject, JsonValue } from "./json.js";

/** One claim of the credential subject, as SD-JWT VC type metadata describes it. */
export interface Claim {
  path: string[];
  /** Required at its level, and every enclosing object is required too. */
  mandatory: boolean;
  display?: ClaimLabel[];
}

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const pathKey = (path: string[]) => JSON.stringify(path);

/**
 * Every property of the subject schema becomes a claim, parents before their children. Nested
 * object properties get longer paths; array items are not descended into (their elements have no
 * fixed path). Labels are attached by exact path.
 */
export function deriveClaims(schema: JsonObject, claimDisplay: ClaimDisplay[] = []): Claim[] {
  const labels = new Map(claimDisplay.map((entry) => [pathKey(entry.path), entry.display]));
  const claims: Claim[] = [];
  const visit = (node: JsonObject, parentPath: string[], parentMandatory: boolean) => {
    const properties = node.properties;
    if (!isObject(properties)) return;
    const required = Array.isArray(node.required) ? node.required : [];
    for (const [name, property] of Object.entries(properties)) {
      const path = [...parentPath, name];
      const mandatory = parentMandatory && required.includes(name);
      const display = labels.get(pathKey(path));
      claims.push(display ? { path, mandatory, display } : { path, mandatory });
      if (isObject(property)) visit(property, path, mandatory);
    }
  };
  visit(schema, [], true);
  return claims;
}
