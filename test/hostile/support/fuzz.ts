import fc from "fast-check";
import { expect } from "vitest";
import { fcOptions, hostileText, INJECTIONS, wrongContentType } from "./arbitraries.js";
import { encodeHostile, expectRefused, http, postJson, show } from "./http.js";
import type { TestPlatform } from "./platform.js";

const sameSnapshot = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys({ ...a, ...b }).every((table) => a[table] === b[table]);

/**
 * A snapshot once background work of earlier tests has settled: the ledger signs a checkpoint up
 * to a second after its log grew, notarization batches land asynchronously. Settled = unchanged
 * across 1.5 s (a checkpoint interval and a half); still changing after 15 s fails the test, since
 * comparing against an unsettled snapshot would blame the refused requests for background writes.
 */
async function settledSnapshot(platform: TestPlatform): Promise<Record<string, string>> {
  let previous = await platform.snapshot();
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const current = await platform.snapshot();
    if (sameSnapshot(previous, current)) return current;
    previous = current;
  }
  throw new Error("the platform's tables were still changing after 15 s: no settled snapshot to compare with");
}

/** Runs `body` and checks that no table of any service changed meanwhile (rejected requests write nothing). */
export async function expectNoDatabaseChange(platform: TestPlatform, body: () => Promise<void>): Promise<void> {
  const before = await settledSnapshot(platform);
  await body();
  const after = await platform.snapshot();
  const changed = Object.keys({ ...before, ...after }).filter((table) => before[table] !== after[table]);
  expect(changed, `tables changed by requests that were all refused: ${changed.join(", ")}`).toEqual([]);
}

/**
 * Posts every one of `bodies` to a JSON endpoint, then `validBody` under every wrong content type,
 * with `headers()` (fresh per request, e.g. a new client address); each must be refused with the
 * API error shape: 400/413 for the bodies, 400/415 for the content types.
 */
export async function expectJsonBodiesRefused(
  url: string,
  options: { bodies: fc.Arbitrary<unknown>; validBody: () => unknown; headers: () => Record<string, string> },
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(options.bodies, async (body) => {
      const result = await postJson(url, body, options.headers());
      expectRefused(result, "api", { statuses: [400, 413], context: show(body) });
    }),
    fcOptions(80),
  );
  await fc.assert(
    fc.asyncProperty(wrongContentType, async (contentType) => {
      const result = await http(url, {
        method: "POST",
        headers: { ...options.headers(), "content-type": contentType },
        body: JSON.stringify(options.validBody()),
      });
      expectRefused(result, "api", { statuses: [400, 415], context: contentType });
    }),
    fcOptions(20),
  );
}

/** Form fields as ordered pairs, so a repeated field is possible. */
export type FormPairs = Array<[string, string]>;

export const encodeForm = (pairs: FormPairs) => {
  const params = new URLSearchParams();
  for (const [key, value] of pairs) params.append(key, value);
  return params.toString();
};

/** Form bodies: hostile pairs around the endpoint's own field names, and raw bytes no encoder would make. */
export function hostileFormBody(fieldNames: string[], values: fc.Arbitrary<string>[] = []): fc.Arbitrary<string> {
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...fieldNames) },
    { weight: 1, arbitrary: hostileText.map((text) => text.slice(0, 40)) },
  );
  const value = fc.oneof(hostileText, ...values);
  return fc.oneof(
    { weight: 5, arbitrary: fc.array(fc.tuple(key, value), { maxLength: 8 }).map(encodeForm) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "%",
        "%%%",
        "=",
        "&&&",
        "a=%FF%FE",
        "grant_type=%ED%A0%80",
        "grant_type=%C0%AF",
        "grant_type=%zz",
        "a=1&a=2&a=3",
        "%00=%00",
        "__proto__=x&constructor[prototype][x]=1",
        `${"a=b&".repeat(5000)}`,
        INJECTIONS.map((text, index) => `f${index}=${encodeHostile(text)}`).join("&"),
      ),
    },
  );
}

/** The pair list with one field's value replaced (or the field added). */
export const withField = (pairs: FormPairs, name: string, value: string): FormPairs => [
  ...pairs.filter(([key]) => key !== name),
  [name, value],
];
