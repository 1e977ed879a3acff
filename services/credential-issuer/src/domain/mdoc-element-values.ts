import { mdocFullDate } from "@attesto/protocol/mdoc";
import type { JsonObject } from "./ports.js";

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * One claim value in its CBOR form, as its JSON Schema says (the schema already validated it):
 * `contentEncoding: base64url` -> bstr, `format: date` -> full-date (tag 1004), `format: date-time`
 * -> tdate (tag 0); arrays and objects element by element; everything else as given.
 */
function toElementValue(value: unknown, schema: unknown): unknown {
  const node = isObject(schema) ? schema : {};
  if (typeof value === "string") {
    if (node.contentEncoding === "base64url") return new Uint8Array(Buffer.from(value, "base64url"));
    if (node.format === "date") return mdocFullDate(value);
    if (node.format === "date-time") return new Date(value);
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => toElementValue(item, node.items));
  if (isObject(value)) {
    const properties = isObject(node.properties) ? node.properties : {};
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toElementValue(item, properties[key])]));
  }
  return value;
}

/** An mdoc offer's claims (`{namespace: {element: value}}`) as `issueMdoc` takes them. */
export function mdocNamespacesOf(claims: JsonObject, schema: JsonObject): Record<string, Record<string, unknown>> {
  const namespaces = isObject(schema.properties) ? schema.properties : {};
  return Object.fromEntries(
    Object.entries(claims)
      .filter(([, elements]) => isObject(elements))
      .map(([namespace, elements]) => {
        const elementSchemas = isObject(namespaces[namespace]) ? namespaces[namespace].properties : {};
        return [namespace, toElementValue(elements, { properties: elementSchemas }) as Record<string, unknown>];
      }),
  );
}
