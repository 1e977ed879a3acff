import { generateEd25519Jwk } from "@attesto/protocol";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  compactJws,
  deepNesting,
  fcOptions,
  forgedJwt,
  headerValue,
  hostileJson,
  hostileText,
  malformedJson,
  notOfType,
  wrongContentType,
} from "./support/arbitraries.js";
import {
  applyTenant,
  BADGE_DCQL,
  type Issued,
  issueCredential,
  openSession,
  presentation,
  type Tenant,
  verificationResult,
} from "./support/flows.js";
import {
  encodeForm,
  expectJsonBodiesRefused,
  expectNoDatabaseChange,
  type FormPairs,
  hostileFormBody,
} from "./support/fuzz.js";
import { encodeHostile, expectNoServerError, expectRefused, http, postJson, show } from "./support/http.js";
import { oversizedChunkedPost, oversizedPost } from "./support/limits.js";
import { startTestPlatform, type TestPlatform } from "./support/platform.js";

/**
 * Hostile input at the verifier (the verifier README): authorization requests (API key), request objects,
 * the wallet's presentation endpoint (OAuth error shape) and result polling (API key).
 */
const PORT_OFFSET = 22_020;

const urlText = hostileText.map((text) => text.slice(0, 1_000));

describe("hostile input: verifier", () => {
  let platform: TestPlatform;
  let tenant: Tenant;
  let issued: Issued;
  let requestUrl: string;
  let presentationUrl: string;
  let verifierPort: number;

  const validRequest = () => ({
    dcql_query: structuredClone(BADGE_DCQL),
    verifier_private_key: generateEd25519Jwk().d,
    verifier_client_id: "https://rp.example",
  });

  beforeAll(async () => {
    platform = await startTestPlatform({ portOffset: PORT_OFFSET, label: "hostile_vf" });
    tenant = await applyTenant(platform.url);
    issued = await issueCredential(platform.url, tenant);
    requestUrl = `${platform.url.verifier}/v1/verifier/authorization-request`;
    presentationUrl = `${platform.url.verifier}/v1/verifier/presentation`;
    verifierPort = Number(new URL(platform.url.verifier).port);
  });
  afterAll(async () => {
    await platform?.close();
  });

  describe("POST /v1/verifier/authorization-request", () => {
    it("without a usable API key: 401 with the spec's message", async () => {
      await expectNoDatabaseChange(platform, async () => {
        await fc.assert(
          fc.asyncProperty(fc.option(headerValue), hostileJson, async (apiKey, body) => {
            const result = await postJson(
              requestUrl,
              JSON.stringify(body) ?? "null",
              apiKey === null ? {} : { "x-api-key": apiKey },
            );
            expectRefused(result, "api", { statuses: [401], context: show({ apiKey, body }) });
            expect(["API Key is required", "Invalid API Key"]).toContain((result.json as { message: string }).message);
          }),
          fcOptions(40),
        );
      });
    });

    it("invalid DCQL queries, keys and fields are 400 and open no session", async () => {
      const mutate = <T>(arbitrary: fc.Arbitrary<T>, set: (body: Record<string, unknown>, value: T) => void) =>
        arbitrary.map((value) => {
          const body: Record<string, unknown> = validRequest();
          set(body, value);
          return JSON.stringify(body);
        });
      const credential = (body: Record<string, unknown>) =>
        (body.dcql_query as { credentials: Array<Record<string, unknown>> }).credentials[0]!;
      const bodies = fc.oneof(
        malformedJson,
        deepNesting,
        notOfType("object").map((value) => JSON.stringify(value) ?? "null"),
        mutate(notOfType("object"), (body, value) => {
          body.dcql_query = value;
        }),
        mutate(hostileJson, (body, value) => {
          body.dcql_query = { credentials: value };
        }),
        mutate(fc.constant([]), (body, value) => {
          body.dcql_query = { credentials: value };
        }),
        mutate(notOfType("string"), (body, value) => {
          credential(body).id = value;
        }),
        mutate(
          fc.oneof(notOfType("array"), fc.constant([{ path: "given_name" }]), fc.constant([{ path: [] }])),
          (body, value) => {
            credential(body).claims = value;
          },
        ),
        mutate(notOfType("object"), (body, value) => {
          credential(body).meta = value;
        }),
        mutate(deepNesting, (body, value) => {
          credential(body).claims = [{ path: ["a"], values: [JSON.parse(value.length < 2000 ? value : "1")] }];
        }),
        mutate(fc.oneof(hostileText, notOfType("string")), (body, value) => {
          body.verifier_private_key = value;
        }),
        mutate(fc.oneof(notOfType("string"), fc.constantFrom("", " ", "a b", "x".repeat(2049))), (body, value) => {
          body.verifier_client_id = value;
        }),
        mutate(fc.oneof(hostileText, notOfType("string")), (body, value) => {
          body.response_mode = value === "direct_post" ? "direct_postx" : value;
        }),
        mutate(
          fc.oneof(notOfType("object"), fc.record({ logo_uri: hostileText.filter((t) => !URL.canParse(t)) })),
          (body, value) => {
            body.client_metadata = value;
          },
        ),
        mutate(
          fc.oneof(
            fc.constantFrom("javascript:alert(1)", "data:text/html,x", "file:///etc/passwd", "vbscript:x", "not a url"),
            notOfType("string"),
          ),
          (body, value) => {
            body.redirect_uri = value;
          },
        ),
        mutate(fc.oneof(notOfType("number"), fc.constantFrom(59, 3601, 0, -1, 1.5, 1e308)), (body, value) => {
          body.expires_in = value;
        }),
      );
      await expectNoDatabaseChange(platform, () =>
        expectJsonBodiesRefused(requestUrl, {
          bodies,
          validBody: validRequest,
          headers: () => ({ "x-api-key": tenant.apiKey }),
        }),
      );
    });

    it("hostile but well-typed free text (client id, client name, claim values, vct) never causes a 5xx", async () => {
      const inputs = fc.record({
        clientId: hostileText.map((text) => text.replace(/\s/g, "").slice(0, 2048) || "x"),
        clientName: hostileText.map((text) => text.slice(0, 256)),
        value: hostileText,
        vct: hostileText,
        id: hostileText.map((text) => text.slice(0, 64)),
      });
      await fc.assert(
        fc.asyncProperty(inputs, async ({ clientId, clientName, value, vct, id }) => {
          const body = validRequest();
          body.verifier_client_id = clientId;
          const query = body.dcql_query.credentials[0]! as Record<string, unknown>;
          query.id = id;
          query.meta = { vct_values: [vct] };
          query.claims = [{ path: ["given_name"], values: [value] }];
          const result = await postJson(
            requestUrl,
            { ...body, client_metadata: { client_name: clientName } },
            { "x-api-key": tenant.apiKey },
          );
          expectNoServerError(result, "api", show({ clientId, clientName, value, vct, id }));
          if (result.status === 201) {
            const object = await http((result.json as { request_uri: string }).request_uri);
            expect(object.status, show({ clientId, clientName, value, vct, id })).toBe(200);
          }
        }),
        fcOptions(),
      );
    });

    it("bodies beyond BODY_LIMIT_BYTES are 413", async () => {
      for (const send of [oversizedPost, oversizedChunkedPost]) {
        const result = await send(verifierPort, "/v1/verifier/authorization-request", "application/json", {
          "X-API-Key": tenant.apiKey,
        });
        expectRefused(result, "api", { statuses: [413], context: send.name });
      }
    });
  });

  it("GET and POST /v1/verifier/request/:id with hostile ids are 400, 404 or 414", async () => {
    await fc.assert(
      fc.asyncProperty(urlText, fc.constantFrom("GET", "POST"), hostileJson, async (id, method, body) => {
        const result = await http(`${platform.url.verifier}/v1/verifier/request/${encodeHostile(id)}`, {
          method,
          ...(method === "POST"
            ? { headers: { "content-type": "application/json" }, body: JSON.stringify({ wallet_nonce: body }) }
            : {}),
        });
        expectRefused(result, "api", { statuses: [400, 404, 414], context: show({ id, method }) });
      }),
      fcOptions(),
    );
  });

  it("POST /v1/verifier/request/:id of a live session refuses a hostile body but never fails", async () => {
    const session = await openSession(platform.url, tenant.apiKey);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({
            type: fc.constant("application/json"),
            body: fc.oneof(
              malformedJson,
              deepNesting,
              hostileJson.map((v) => JSON.stringify({ wallet_nonce: v })),
            ),
          }),
          fc.record({
            type: fc.constant("application/x-www-form-urlencoded"),
            body: hostileFormBody(["wallet_nonce", "wallet_metadata"]),
          }),
          fc.record({ type: wrongContentType, body: hostileText }),
        ),
        async ({ type, body }) => {
          const result = await http(session.request_uri, { method: "POST", headers: { "content-type": type }, body });
          expectNoServerError(result, "api", show({ type, body }));
        },
      ),
      fcOptions(40),
    );
  });

  describe("POST /v1/verifier/presentation", () => {
    it("hostile forms without a live session are 400 invalid_request (OAuth shape) and write nothing", async () => {
      await expectNoDatabaseChange(platform, async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.oneof(
              hostileFormBody(["state", "vp_token", "response", "verification_mode", "presentation_submission"]),
              fc.record({ state: hostileText, vp_token: hostileText }).map((f) => encodeForm(Object.entries(f))),
              fc.record({ response: forgedJwt, state: hostileText }).map((f) => encodeForm(Object.entries(f))),
              fc.record({ header: hostileJson, state: hostileText }).map((f) =>
                encodeForm([
                  ["response", `${compactJws(f.header, {})}.x.y`],
                  ["state", f.state],
                ]),
              ),
            ),
            async (body) => {
              const result = await http(presentationUrl, {
                method: "POST",
                headers: { "content-type": "application/x-www-form-urlencoded" },
                body,
              });
              expectRefused(result, "oauth", { statuses: [400], code: "invalid_request", context: show(body) });
            },
          ),
          fcOptions(),
        );
      });
    });

    it("JSON, malformed and wrongly typed bodies are refused with the OAuth shape", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.record({
              type: fc.constant("application/json"),
              body: fc.oneof(
                malformedJson,
                deepNesting,
                hostileJson.map((v) => JSON.stringify(v) ?? ""),
              ),
            }),
            fc.record({
              type: wrongContentType.filter((t) => t !== "application/x-www-form-urlencoded"),
              body: hostileText,
            }),
          ),
          async ({ type, body }) => {
            const result = await http(presentationUrl, { method: "POST", headers: { "content-type": type }, body });
            expectRefused(result, "oauth", { statuses: [400, 413, 415], context: show({ type, body }) });
          },
        ),
        fcOptions(40),
      );
    });

    it("a hostile vp_token for a live session is refused or recorded as failed, never a 5xx", async () => {
      const vp = await presentation(issued, await openSession(platform.url, tenant.apiKey));
      const [jwt, ...rest] = vp.split("~");
      const tokens = fc.oneof(
        hostileText,
        hostileJson.map((v) => JSON.stringify(v) ?? ""),
        hostileJson.map((v) => JSON.stringify({ badge: v })),
        hostileText.map((t) => JSON.stringify({ badge: [t] })),
        fc.constantFrom(
          JSON.stringify({ badge: [`${jwt}~`] }),
          JSON.stringify({ badge: [vp, vp] }),
          JSON.stringify({ other: [vp] }),
          JSON.stringify({
            badge: [`${compactJws({ alg: "none", typ: "dc+sd-jwt" }, { iss: "x", vct: "y" })}~${rest.join("~")}`],
          }),
          JSON.stringify({ badge: [`${jwt}~${"WyJ4IiwieSJd~".repeat(2000)}`] }),
          JSON.stringify({ badge: [vp.replace(/~[^~]*$/, `~${compactJws({ alg: "none", typ: "kb+jwt" }, {})}`)] }),
          JSON.stringify({ badge: [vp] }).replace("badge", "__proto__"),
        ),
      );
      await fc.assert(
        fc.asyncProperty(
          tokens,
          fc.option(fc.oneof(hostileText, fc.constantFrom("run_all", "fail_fast"))),
          async (vpToken, mode) => {
            const session = await openSession(platform.url, tenant.apiKey);
            const pairs: FormPairs = [
              ["state", session.request.state],
              ["vp_token", vpToken],
            ];
            if (mode !== null) pairs.push(["verification_mode", mode]);
            const result = await http(presentationUrl, {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: encodeForm(pairs),
            });
            expectNoServerError(result, "oauth", show({ vpToken, mode }));
            const polled = await verificationResult(platform.url, tenant.apiKey, session.session_id);
            const status = (polled.json as { status: string }).status;
            if (result.status === 200) expect(["completed", "failed"], show({ vpToken, mode })).toContain(status);
            else expect(status, show({ vpToken, mode })).toBe("pending");
          },
        ),
        fcOptions(50),
      );
    });

    it("bodies beyond BODY_LIMIT_BYTES are 413 with the OAuth shape", async () => {
      for (const send of [oversizedPost, oversizedChunkedPost]) {
        const result = await send(verifierPort, "/v1/verifier/presentation", "application/x-www-form-urlencoded");
        expectRefused(result, "oauth", { statuses: [413], context: send.name });
      }
    });
  });

  it("GET /v1/verifier/result/:id: hostile ids are 400/404/414, hostile keys 401", async () => {
    await fc.assert(
      fc.asyncProperty(urlText, fc.option(headerValue), async (id, apiKey) => {
        const result = await http(`${platform.url.verifier}/v1/verifier/result/${encodeHostile(id) || "x"}`, {
          headers: apiKey === null ? { "x-api-key": tenant.apiKey } : { "x-api-key": apiKey },
        });
        expectRefused(result, "api", {
          statuses: apiKey === null ? [400, 404, 414] : [400, 401, 404, 414],
          context: show({ id, apiKey }),
        });
      }),
      fcOptions(),
    );
  });
});
