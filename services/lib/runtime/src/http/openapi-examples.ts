/**
 * Examples for the OpenAPI documents: a body's example is the one its schema gives (zod
 * `.meta({ examples })`), else one made from the schema itself (its members' examples, constants,
 * enums, formats and bounds), so every operation shows a body a client can send or expect.
 */

type Schema = Record<string, unknown>;

const FORMAT_EXAMPLES: Record<string, string> = {
  uuid: "0b7e5c2e-3f1a-4d2b-9c8e-6a5f4e3d2c1b",
  "date-time": "2026-11-29T08:00:00.000Z",
  date: "2026-11-29",
  time: "08:00:00",
  uri: "https://issuer.example/acme",
  url: "https://issuer.example/acme",
  email: "ada@example.com",
  hostname: "issuer.example",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  base64url: "c2FtcGxl",
  jwt: "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIn0.c2lnbmF0dXJl",
};

/** Bodies that are not JSON, by media type (the documents give them as strings). */
const MEDIA_EXAMPLES: Record<string, string> = {
  "text/html": '<!doctype html><html lang="en"><head><title>Attesto</title></head><body>…</body></html>',
  "image/svg+xml": '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 33 33"><path d="M0 0h7v7H0z"/></svg>',
  "text/javascript": "export function requestCredential() { /* … */ }",
  "application/javascript": "export function requestCredential() { /* … */ }",
  "text/css": ":root { color-scheme: light dark; }",
  "text/plain": "ok",
  "application/x-pem-file": "-----BEGIN CERTIFICATE-----\nMIIB…\n-----END CERTIFICATE-----\n",
};
const JWT_EXAMPLE = FORMAT_EXAMPLES.jwt as string;

const MAX_DEPTH = 8;

/** Resolves a local `$ref` (`#/components/schemas/X`, `#/$defs/X`) against the document or schema root. */
function resolve(reference: string, roots: readonly Schema[]): Schema | undefined {
  if (!reference.startsWith("#/")) return undefined;
  const segments = reference
    .slice(2)
    .split("/")
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
  for (const root of roots) {
    let node: unknown = root;
    for (const segment of segments) node = (node as Schema | undefined)?.[segment];
    if (node && typeof node === "object") return node as Schema;
  }
  return undefined;
}

function numberOf(schema: Schema): number {
  const minimum = typeof schema.minimum === "number" ? schema.minimum : undefined;
  const maximum = typeof schema.maximum === "number" ? schema.maximum : undefined;
  let value = 1;
  if (minimum !== undefined && value < minimum) value = minimum;
  if (maximum !== undefined && value > maximum) value = maximum;
  if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum)
    value = schema.exclusiveMinimum + 1;
  return value;
}

/** A string member's example by its name, when its schema has no format: `expires_at`, `credential_offer_uri`, ... */
const NAMED_EXAMPLES: ReadonlyArray<[RegExp, string]> = [
  [/(^|_)(uri|url)$/, "https://issuer.example/acme"],
  [/_at$/, "2026-11-29T08:00:00.000Z"],
  [/(^|_)did$/, "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"],
  [/^(id|.*_id)$/, "0b7e5c2e-3f1a-4d2b-9c8e-6a5f4e3d2c1b"],
  [/(^|_)tenant$/, "acme"],
];

function stringOf(schema: Schema, name: string | undefined): string {
  const format = typeof schema.format === "string" ? FORMAT_EXAMPLES[schema.format] : undefined;
  const named = name && !schema.pattern ? NAMED_EXAMPLES.find(([pattern]) => pattern.test(name))?.[1] : undefined;
  let value = format ?? named ?? "string";
  const minLength = typeof schema.minLength === "number" ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
  if (value.length < minLength) value = value.padEnd(minLength, "x");
  if (value.length > maxLength) value = value.slice(0, maxLength);
  return value;
}

function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((type) => type !== "null") ?? "null";
  if (typeof schema.type === "string") return schema.type;
  if (schema.properties) return "object";
  if (schema.items) return "array";
  return undefined;
}

function exampleAt(schema: Schema | boolean, roots: readonly Schema[], depth: number, name?: string): unknown {
  // `true`/`false` schemas (a tuple's `items: false`): anything, or nothing to show.
  if (typeof schema !== "object" || schema === null) return "…";
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ("example" in schema) return schema.example;
  if ("const" in schema) return schema.const;
  if ("default" in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (typeof schema.$ref === "string") {
    const target = resolve(schema.$ref, roots);
    return target && depth < MAX_DEPTH ? exampleAt(target, roots, depth + 1, name) : {};
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const alternatives = schema[key];
    if (Array.isArray(alternatives) && alternatives.length > 0) {
      const chosen = (alternatives as Schema[]).find((alternative) => alternative.type !== "null") ?? alternatives[0];
      return exampleAt(chosen as Schema, roots, depth + 1, name);
    }
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...(schema.allOf as Schema[]).map((part) => exampleAt(part, roots, depth + 1)));
  }
  switch (typeOf(schema)) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      if (depth >= MAX_DEPTH) return {};
      return Object.fromEntries(
        Object.entries(properties).map(([member, property]) => [member, exampleAt(property, roots, depth + 1, member)]),
      );
    }
    case "array": {
      if (Array.isArray(schema.prefixItems)) {
        return (schema.prefixItems as Schema[]).map((item) => exampleAt(item, roots, depth + 1));
      }
      const items = (schema.items ?? {}) as Schema;
      const count = Math.max(1, typeof schema.minItems === "number" ? schema.minItems : 1);
      if (typeof schema.maxItems === "number" && schema.maxItems === 0) return [];
      return Array.from({ length: count }, () => exampleAt(items, roots, depth + 1));
    }
    case "string":
      return stringOf(schema, name);
    case "integer":
      return Math.round(numberOf(schema));
    case "number":
      return numberOf(schema);
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return "…";
  }
}

/** An example body for `schema` served as `mediaType`; `roots` resolve its `$ref`s (the document first). */
export function exampleOf(schema: Schema | undefined, mediaType: string, roots: readonly Schema[] = []): unknown {
  const isJson = mediaType === "application/json" || mediaType.endsWith("+json");
  if (!isJson && (!schema || typeOf(schema) === "string" || typeOf(schema) === undefined)) {
    if (schema && Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
    if (MEDIA_EXAMPLES[mediaType]) return MEDIA_EXAMPLES[mediaType];
    if (mediaType.endsWith("jwt") || mediaType.endsWith("+jwt")) return JWT_EXAMPLE;
    return "…";
  }
  return exampleAt(schema ?? {}, [...roots, schema ?? {}], 0);
}

/** Whether a media type object or its schema already gives an example. */
export const hasExample = (media: Schema): boolean =>
  "example" in media ||
  "examples" in media ||
  Array.isArray((media.schema as Schema | undefined)?.examples) ||
  "example" in ((media.schema as Schema | undefined) ?? {});
