import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestVerifier, type TestVerifier } from "./support/test-verifier.js";

interface Schema {
  properties?: Record<string, Schema & { description?: string; enum?: string[] }>;
  description?: string;
}
interface Operation {
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  parameters?: Array<{ name: string; in: string; description?: string; schema: Schema }>;
}

/**
 * The served API document (GET /openapi.json) describes every field of the real-wallet modes: the
 * x509 client id prefixes, the Digital Credentials API, QR codes and pages, the same-device code.
 */
describe("GET /openapi.json: the real-wallet fields", () => {
  let verifier: TestVerifier;
  let paths: Record<string, Record<string, Operation>>;
  beforeAll(async () => {
    verifier = await startTestVerifier();
    paths = (await verifier.app.inject({ method: "GET", url: "/openapi.json" })).json().paths;
  });
  afterAll(() => verifier.close());

  it("authorization-request: client_id_prefix, the dc_api modes, expected_origins, redirect_uri in; client_id, dc_api_request, qr_code_url, page_url out", () => {
    const operation = paths["/v1/verifier/authorization-request"]?.post as Operation;
    const body = operation.requestBody?.content["application/json"]?.schema.properties ?? {};
    expect(body.client_id_prefix).toMatchObject({
      enum: ["x509_hash", "x509_san_dns"],
      description: expect.any(String),
    });
    expect(body.response_mode?.enum).toEqual(["direct_post", "direct_post.jwt", "dc_api", "dc_api.jwt"]);
    expect(body.expected_origins?.description).toMatch(/origins/);
    expect(body.redirect_uri).toBeDefined();
    const created = operation.responses["201"]?.content?.["application/json"]?.schema.properties ?? {};
    for (const field of [
      "client_id",
      "dc_api_request",
      "request_uri",
      "authorization_request",
      "qr_code_url",
      "page_url",
    ]) {
      expect(created[field]?.description, field).toEqual(expect.any(String));
    }
    expect(created.dc_api_request?.properties?.protocol?.enum).toEqual([
      "openid4vp-v1-signed",
      "openid4vp-v1-unsigned",
    ]);
  });

  it("the DC API endpoint and assets, the QR code, page and status, the same-device code", () => {
    for (const path of [
      "/v1/verifier/dc-api/{sessionId}",
      "/v1/verifier/dc-api.js",
      "/v1/verifier/dc-api/demo",
      "/v1/verifier/request/{requestUriId}/qr.svg",
      "/v1/verifier/request/{requestUriId}/page",
      "/v1/verifier/request/{requestUriId}/status",
    ]) {
      expect(paths[path], path).toBeDefined();
    }
    const dcApi = paths["/v1/verifier/dc-api/{sessionId}"]?.post as Operation;
    // The body schema is `object | null` (the use case answers each refusal in the OAuth shape).
    const dcApiBody = dcApi.requestBody?.content["application/json"]?.schema as { anyOf: Schema[] };
    const members = dcApiBody.anyOf.find((schema) => schema.properties)?.properties ?? {};
    expect(members.protocol?.description).toMatch(/openid4vp-v1-signed/);
    expect(members.data?.description).toMatch(/vp_token/);
    const result = paths["/v1/verifier/result/{sessionId}"]?.get as Operation;
    expect(result.parameters?.find((p) => p.name === "response_code")).toMatchObject({ in: "query" });
    const presentation = paths["/v1/verifier/presentation"]?.post as Operation;
    const accepted = presentation.responses["200"]?.content?.["application/json"]?.schema.properties;
    expect(accepted?.redirect_uri?.description).toMatch(/response_code/);
  });
});
