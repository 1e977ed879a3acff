import { describe, expect, it } from "vitest";
import { ContractChecker, type OpenApiDocument } from "./support/contract-check.js";
import type { Exchange } from "./support/exchange-recorder.js";

/** The checker itself: each kind of mismatch is caught, and a kept contract passes. */
const ORIGIN = "http://localhost:1";
const json = "application/json";
const document: OpenApiDocument = {
  paths: {
    "/v1/things/{id}": {
      get: {
        responses: {
          "200": {
            content: {
              [json]: { schema: { type: "object", required: ["id"], properties: { id: { type: "string" } } } },
            },
          },
          "404": { content: { [json]: { schema: { type: "object", required: ["error"] } } } },
        },
      },
    },
    "/v1/things": {
      post: {
        requestBody: {
          content: {
            [json]: { schema: { type: "object", required: ["name"], properties: { name: { type: "string" } } } },
          },
        },
        responses: { "201": { content: { [json]: { schema: { type: "object" } } } } },
      },
    },
  },
};

const exchange = (overrides: Partial<Exchange>): Exchange => ({
  method: "GET",
  url: new URL(`${ORIGIN}/v1/things/7`),
  requestContentType: undefined,
  requestBody: undefined,
  status: 200,
  responseContentType: json,
  responseBody: JSON.stringify({ id: "7" }),
  ...overrides,
});

describe("ContractChecker", () => {
  const checker = new ContractChecker(new Map([[ORIGIN, document]]));

  it("passes exchanges that keep the contract", () => {
    expect(checker.check(exchange({}))).toEqual([]);
    expect(
      checker.check(exchange({ status: 404, responseBody: JSON.stringify({ error: "not_found", message: "x" }) })),
    ).toEqual([]);
    expect(
      checker.check(
        exchange({
          method: "POST",
          url: new URL(`${ORIGIN}/v1/things`),
          requestContentType: json,
          requestBody: JSON.stringify({ name: "a" }),
          status: 201,
          responseBody: "{}",
        }),
      ),
    ).toEqual([]);
  });

  it("fails an undocumented operation, status or body type", () => {
    expect(checker.check(exchange({ url: new URL(`${ORIGIN}/v1/other`) }))).toEqual([
      `GET ${ORIGIN}/v1/other: no such operation in the document`,
    ]);
    expect(checker.check(exchange({ status: 410 }))).toEqual([
      "GET /v1/things/{id} -> 410: status 410 (Gone) is not documented",
    ]);
    expect(checker.check(exchange({ responseContentType: "text/html", responseBody: "<p>" }))).toEqual([
      "GET /v1/things/{id} -> 200: the body's type text/html is not documented (documented: application/json)",
    ]);
  });

  it("fails a response body or an accepted request body that does not match its schema", () => {
    expect(checker.check(exchange({ responseBody: JSON.stringify({ id: 7 }) }))).toEqual([
      "GET /v1/things/{id} -> 200: the response body does not match its schema: /id must be string",
    ]);
    expect(
      checker.check(
        exchange({
          method: "POST",
          url: new URL(`${ORIGIN}/v1/things`),
          requestContentType: json,
          requestBody: JSON.stringify({}),
          status: 201,
          responseBody: "{}",
        }),
      ),
    ).toEqual([
      "POST /v1/things -> 201: the accepted request body does not match its schema: / must have required property 'name'",
    ]);
  });
});
