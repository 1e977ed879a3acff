import fc from "fast-check";

/**
 * Hostile inputs for property-based fuzzing. Everything here is bounded: a property explores
 * 50–100 cases, and the biggest values stay under the 1 MiB body limit unless they are meant to
 * exceed it.
 */

/** Runs per property: enough to cover every family below several times, small enough for CI. */
export const RUNS = Number(process.env.HOSTILE_RUNS ?? 60);

export const fcOptions = (numRuns = RUNS): fc.Parameters<unknown> => ({
  numRuns,
  // A seed from the environment reproduces a failing run; vitest prints the one used.
  ...(process.env.HOSTILE_SEED ? { seed: Number(process.env.HOSTILE_SEED) } : {}),
  endOnFailure: true,
});

/** Classic injection and confusion strings: SQL, LIKE wildcards, traversal, CRLF, templates, scripts. */
export const INJECTIONS = [
  "' OR '1'='1",
  "' OR 1=1 --",
  "'; DROP TABLE tenants; --",
  '"; DROP SCHEMA public CASCADE; --',
  "1; SELECT pg_sleep(10); --",
  "' UNION SELECT NULL, version() --",
  "$1",
  "%",
  "_",
  "%%",
  "%_%",
  "\\",
  "\\%",
  "\\_",
  "*",
  "../../../../etc/passwd",
  "..%2f..%2f..%2fetc%2fpasswd",
  "..\\..\\windows\\win.ini",
  "/etc/passwd\u0000.json",
  "\r\nSet-Cookie: injected=1",
  "\r\n\r\nHTTP/1.1 200 OK",
  "%0d%0aSet-Cookie:%20x=1",
  "<script>alert(1)</script>",
  '"><img src=x onerror=alert(1)>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a Log4Shell probe, meant literally
  "${jndi:ldap://example.invalid/a}",
  "{{7*7}}",
  "#{7*7}",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "null",
  "undefined",
  "NaN",
  "-1",
  "0",
  "1e309",
  "9007199254740993",
  "true",
  "[]",
  "{}",
  "",
  " ",
  "\t",
  "\u0000",
  "a\u0000b",
  "\u202eevil\u202c",
  "\u200f\u05e9\u05dc\u05d5\u05dd",
  "\u0645\u0631\u062d\u0628\u0627",
  "\ud800",
  "\udfff",
  "a\ud800b",
  "\udc00\ud800",
  "\ufeff",
  "\uffff",
  "\u{10ffff}",
  "𝕏𝕐ℤ",
  "👩‍👩‍👧‍👦",
  "e\u0301\u0301\u0301\u0301",
  "İıſK",
  "did:ledger:../../x",
  "did:key:zzzz",
  "urn:ietf:params:oauth:request-uri:../../x",
  "javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "file:///etc/passwd",
  "http://169.254.169.254/latest/meta-data/",
  "A".repeat(5_000),
  "é".repeat(3_000),
  "\u0000".repeat(100),
];

/** Longest generated text (characters): big enough to hurt, small enough for headers and URLs to stay legal. */
export const MAX_HOSTILE_TEXT = 6_000;

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
const controlChar = fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code));
const bidiChar = fc.constantFrom("\u202a", "\u202b", "\u202d", "\u202e", "\u2066", "\u2067", "\u2069", "\u200e");

/** Any text an attacker might send: injections, full Unicode, lone surrogates, controls, bidi, long runs. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...INJECTIONS) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.oneof(loneSurrogate, controlChar, bidiChar, fc.string({ maxLength: 3 })), { maxLength: 12 })
      .map((parts) => parts.join("")),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...INJECTIONS), fc.integer({ min: 2, max: 400 }))
      .map(([text, n]) =>
        text.repeat(Math.max(1, Math.min(n, Math.floor(MAX_HOSTILE_TEXT / Math.max(1, text.length))))),
      ),
  },
);

/** A JSON scalar of any type, including edge numbers. */
export const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  fc.constantFrom(0, -0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER, 1.2345678901234568e29),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);

const hostileKey = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "prototype", "$where", "$gt", "", " ", "\u0000", "a.b", "a[0]"),
  hostileText.map((text) => text.slice(0, 50)),
);

/** Arbitrary JSON values with hostile leaves and keys, bounded in size. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileScalar,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(hostileKey, tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** A JSON value that is not of `type` (for wrong-type fields). */
export function notOfType(type: "string" | "object" | "boolean" | "number" | "array"): fc.Arbitrary<unknown> {
  return hostileJson.filter((value) => {
    if (type === "array") return !Array.isArray(value);
    if (type === "object") return typeof value !== "object" || value === null || Array.isArray(value);
    return typeof value !== type;
  });
}

/** `depth` nested arrays or objects around `inner`, as JSON text (built as text: no recursion here). */
export function nestedJson(depth: number, kind: "array" | "object", inner = "1"): string {
  return kind === "array"
    ? `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`
    : `${'{"a":'.repeat(depth)}${inner}${"}".repeat(depth)}`;
}

export const deepNesting = fc
  .record({
    depth: fc.constantFrom(64, 1_000, 10_000, 100_000),
    kind: fc.constantFrom("array" as const, "object" as const),
  })
  .map(({ depth, kind }) => nestedJson(depth, kind));

/** JSON text that does not parse. */
export const malformedJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "{",
    "}",
    "[",
    '{"a":}',
    '{"a" 1}',
    "{'a': 1}",
    '{"a": 1,}',
    "[1, 2,,]",
    "nul",
    "tru",
    '"unterminated',
    '{"a": "\\u12"}',
    '{"a": "\\x41"}',
    '{"a": 1}\u0000',
    '{"a": NaN}',
    '{"a": Infinity}',
    '{"a": 01}',
    '{"__proto__": {"polluted": true}}',
    '{"constructor": {"prototype": {"polluted": true}}}',
    "\ufeff{}",
    "<xml/>",
    "a=b&c=d",
  ),
  fc.string({ unit: "binary", minLength: 1, maxLength: 60 }).filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return true;
    }
  }),
);

/** Content types a JSON endpoint must not take as JSON (or must refuse cleanly). */
export const wrongContentType = fc.constantFrom(
  "text/plain",
  "text/html",
  "application/xml",
  "multipart/form-data; boundary=x",
  "application/octet-stream",
  "application/jsonx",
  "application/x-www-form-urlencoded",
  "image/png",
  "*/*",
  "invalid",
  ";;;",
);

/** Header values fetch can carry (bytes 0x20–0xFF, no DEL): hostile text squeezed into latin-1. */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...INJECTIONS.filter((text) => /^[\x20-\x7e\x80-\xff]*$/.test(text) && text.length < 3000)),
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((code) => code !== 0x7f)
      .map((code) => String.fromCharCode(code)),
    maxLength: 80,
  }),
);

const b64url = (value: unknown) =>
  Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

/** A compact JWS made of arbitrary header and payload JSON and a given signature segment. */
export const compactJws = (header: unknown, payload: unknown, signature = "") =>
  `${b64url(header)}.${b64url(payload)}.${signature}`;

/** Longest forged JWT: two of them must fit Node's 16 KiB header block (a bigger one is tested on its own: 431). */
const MAX_JWT_CHARS = 6_000;

/** Forged JWTs: alg none, unsigned, wrong algs, garbage segments, embedded keys, huge, wrong segment counts. */
export const forgedJwt: fc.Arbitrary<string> = fc
  .oneof(
    fc
      .record({
        alg: fc.constantFrom("none", "None", "NONE", "nOnE", "HS256", "RS256", "ES256", "EdDSA", "ES512", "PS256", ""),
        typ: fc.constantFrom("JWT", "at+jwt", "dpop+jwt", "openid4vci-proof+jwt", "", undefined),
        payload: hostileJson,
        signature: fc.constantFrom("", "AAAA", "x".repeat(86), "....", "%%%"),
        withJwk: fc.boolean(),
      })
      .map(({ alg, typ, payload, signature, withJwk }) =>
        compactJws(
          {
            alg,
            ...(typ === undefined ? {} : { typ }),
            ...(withJwk ? { jwk: { kty: "EC", crv: "P-256", x: "AAAA", y: "AAAA" } } : {}),
          },
          payload,
          signature,
        ),
      ),
    fc
      .record({ header: hostileJson, payload: hostileJson })
      .map(({ header, payload }) => compactJws(header, payload, "sig")),
    fc.constantFrom(
      "",
      ".",
      "..",
      "...",
      "a.b",
      "a.b.c.d",
      "a.b.c.d.e",
      "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
      "eyJhbGciOiJub25lIn0..",
      "eyJ.eyJ.eyJ",
      "null.null.null",
      `${"A".repeat(2500)}.${"B".repeat(2500)}.C`,
    ),
    fc
      .integer({ min: 1_000, max: 5_000 })
      .map((size) => compactJws({ alg: "ES256", typ: "JWT" }, { pad: "x".repeat(size) }, "AAAA")),
  )
  .map((jwt) => (jwt.length <= MAX_JWT_CHARS ? jwt : `${jwt.slice(0, MAX_JWT_CHARS - 10)}.x`));
