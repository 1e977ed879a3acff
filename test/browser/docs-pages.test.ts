import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InteropPlatform, type ServiceName, startInteropPlatform } from "../interop/support/platform.js";
import { collectCspViolations, launchChromium, screenshot } from "./support/chromium.js";

/**
 * `GET /docs` on every public port of the REAL platform (every service started): Chromium renders
 * Swagger UI from the port's own assets, the page lists exactly the operations of the port's
 * OpenAPI document, causes no CSP violation, loads nothing from another host, and "Try it out" on
 * `GET /health` (and on a metadata document where the service has one) answers 200 from the
 * running service.
 */

/** Ports 20581..20588 / 21581..21588 (the default ports + this offset). */
const PORT_OFFSET = 12_500;

const TEST_TIMEOUT_MS = 120_000;

const SERVICES: ServiceName[] = [
  "auth-server",
  "credential-issuer",
  "verifier",
  "holder",
  "trust-registry",
  "schema-registry",
  "scheduler",
  "ledger",
];

/** A GET operation without parameters whose "Try it out" must answer 200, besides `/health`. */
const METADATA_OPERATION: Partial<Record<ServiceName, string>> = {
  "auth-server": "/.well-known/oauth-authorization-server",
  "schema-registry": "/schemas",
};

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** `METHOD path` of every operation of an OpenAPI document. */
function operationsOf(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => HTTP_METHODS.includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();
}

describe("browser: /docs on every public port", () => {
  let browser: Browser;
  let platform: InteropPlatform;

  beforeAll(async () => {
    browser = await launchChromium();
    platform = await startInteropPlatform({
      portOffset: PORT_OFFSET,
      label: "browser_docs",
      alsoStart: ["holder", "scheduler"],
    });
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  /** The operation block of `METHOD path` on the rendered page. */
  const operation = (page: Page, method: string, path: string) =>
    page
      .locator(`.opblock.opblock-${method.toLowerCase()}`)
      .filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });

  /** Opens an operation, presses "Try it out" and "Execute", and returns the status and body shown. */
  async function tryIt(page: Page, method: string, path: string) {
    const block = operation(page, method, path);
    await block.locator(".opblock-summary").click();
    await block.getByRole("button", { name: "Try it out" }).click();
    await block.getByRole("button", { name: "Execute" }).click();
    const live = block.locator(".live-responses-table .response");
    await live.first().waitFor();
    return {
      status: (await live.locator(".response-col_status").first().textContent())?.trim(),
      body: await block.locator(".live-responses-table .response-col_description pre").first().textContent(),
    };
  }

  for (const service of SERVICES) {
    it(
      `${service}: the page renders every operation of the document, and "Try it out" reaches the service`,
      async () => {
        const base = platform.url(service);
        const document = (await (await fetch(`${base}/openapi.json`)).json()) as Parameters<typeof operationsOf>[0];
        const expected = operationsOf(document);
        expect(expected).toContain("GET /health");

        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        try {
          const page = await context.newPage();
          const violations = collectCspViolations(page);
          const foreign: string[] = [];
          page.on("request", (request) => {
            if (!request.url().startsWith(`${base}/`) && !request.url().startsWith("data:")) {
              foreign.push(request.url());
            }
          });

          const response = await page.goto(`${base}/docs`);
          expect(response?.status()).toBe(200);
          expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'");
          expect(await page.title()).toBe(`Attesto ${service} API`);
          await expect(page.locator(".info .title").textContent()).resolves.toContain(`Attesto ${service} API`);
          await page.locator(".opblock").first().waitFor();

          const shown = await page
            .locator(".opblock")
            .evaluateAll((blocks) =>
              blocks.map(
                (block) =>
                  `${block.querySelector(".opblock-summary-method")?.textContent} ${block.querySelector(".opblock-summary-path")?.getAttribute("data-path")}`,
              ),
            );
          expect(shown.sort()).toEqual(expected);
          await screenshot(page, `docs-${service}`);

          const health = await tryIt(page, "GET", "/health");
          expect(health.status).toBe("200");
          expect(JSON.parse(health.body ?? "")).toMatchObject({ status: "ok", service });

          const metadata = METADATA_OPERATION[service];
          if (metadata) {
            const answer = await tryIt(page, "GET", metadata);
            expect(answer.status).toBe("200");
          }
          await screenshot(page, `docs-${service}-tried`);

          expect(violations).toEqual([]);
          expect(foreign).toEqual([]);
        } finally {
          await context.close();
        }
      },
      TEST_TIMEOUT_MS,
    );
  }
});
