import { randomBytes } from "node:crypto";
import { generateEd25519Jwk } from "@attesto/protocol";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyTenant,
  BADGE_CLAIMS,
  BADGE_CONFIG,
  BADGE_DCQL,
  createOffer,
  didKeyIssuer,
  fetchOffer,
  getToken,
  logIn,
  PRE_AUTHORIZED_GRANT,
  type Tenant,
} from "./support/flows.js";
import { http } from "./support/http.js";
import {
  SERVICE_NAMES,
  SERVICE_PORTS,
  type ServiceName,
  startTestPlatform,
  type TestPlatform,
} from "./support/platform.js";

/**
 * No error answer echoes its input (root README, "Error answers"): every public route of every service,
 * read from its own OpenAPI document, gets marker strings in its path parameters, query, JSON or
 * form body and credentials (fast-check picks where and how each marker is wrapped: bare, as a
 * DID, URL, deep link or object key), and every 4xx/5xx body is searched for the marker. The only
 * texts allowed to name input are the two the interface prescribes for POST /v1/apply conflicts
 * (`Email '<email>' already exists`, `Tenant '<tenant>' already exists`), which these runs never
 * reach (every marker is fresh).
 */
const PORT_OFFSET = 10_000;

/** A fresh marker: lowercase (tenant identifiers are lowercased), found case-insensitively. */
const newMarker = () => `zqmk${randomBytes(6).toString("hex")}`;

/** Ways a marker reaches a field: bare, inside the shapes the endpoints parse further. */
const wrappings: Array<(marker: string) => unknown> = [
  (m) => m,
  (m) => `did:key:z${m}`,
  (m) => `did:ledger:${m}`,
  (m) => `https://${m}.example/${m}`,
  (m) => `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(`https://${m}.example/o`)}`,
  (m) => `openid4vp://?client_id=${m}&request_uri=${encodeURIComponent(`https://${m}.example/r`)}`,
  (m) => `${m}.${m}.${m}`,
  (m) => ({ [m]: m }),
  (m) => [m],
  (m) => ({ jwt: [m] }),
];
const wrapping = fc.integer({ min: 0, max: wrappings.length - 1 });

interface Operation {
  service: ServiceName;
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyFields: string[];
  bodyType: "json" | "form" | undefined;
}

type OpenApi = {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Array<{ in: string; name: string }>;
        requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
      }
    >
  >;
};

async function operationsOf(service: ServiceName, baseUrl: string): Promise<Operation[]> {
  const document = (await http(`${baseUrl}/openapi.json`)).json as OpenApi;
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const content = operation.requestBody?.content ?? {};
      const json = content["application/json"];
      const form = content["application/x-www-form-urlencoded"];
      const schema = (json ?? form)?.schema;
      return {
        service,
        method: method.toUpperCase(),
        path,
        pathParams: (operation.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name),
        queryParams: (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
        bodyFields: Object.keys(schema?.properties ?? {}),
        bodyType: json ? "json" : form ? "form" : method === "post" || method === "put" ? "json" : undefined,
      };
    }),
  );
}

/** A value as text: strings as they are, anything else as JSON. */
const text = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** Fields as an x-www-form-urlencoded body. */
const formBody = (fields: Record<string, unknown>) => {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) params.append(key, text(value));
  return params.toString();
};

/** A JSON value with one leaf (or one object key) replaced by `replacement`: every such variant. */
function leafVariants(value: unknown, replacement: (marker: string) => unknown, marker: string): unknown[] {
  if (Array.isArray(value)) {
    return value.flatMap((item, index) =>
      leafVariants(item, replacement, marker).map((variant) =>
        value.map((other, i) => (i === index ? variant : other)),
      ),
    );
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    return entries.flatMap(([, item], index) => [
      // the key itself
      Object.fromEntries(entries.map(([k, v], i) => (i === index ? [marker, v] : [k, v]))),
      ...leafVariants(item, replacement, marker).map((variant) =>
        Object.fromEntries(entries.map(([k, v], i) => (i === index ? [k, variant] : [k, v]))),
      ),
    ]);
  }
  return [replacement(marker)];
}

/** A request that the route accepts (or refuses only late), whose leaves the deep probes replace. */
interface Seed {
  service: ServiceName;
  method: string;
  path: string;
  body: Record<string, unknown>;
  form?: boolean;
  headers: Record<string, string>;
}

/** Only error answers are searched: a redirect or a document may carry a parameter on purpose (the Location of a 302). */
const isError = (status: number) => status >= 400;

describe("error answers never echo their input", () => {
  let platform: TestPlatform;
  let tenant: Tenant;
  let holderToken: string;
  const operations: Operation[] = [];
  const seeds: Seed[] = [];

  beforeAll(async () => {
    platform = await startTestPlatform({ portOffset: PORT_OFFSET, label: "reflected" });
    tenant = await applyTenant(platform.url);
    const password = "Holder-Passw0rd";
    const registered = (await http(`${platform.url.holder}/v1/user/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password }),
    })) as { json: { uuid: string } };
    const login = await http(`${platform.url.holder}/v1/user/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ uuid: registered.json.uuid, password }),
    });
    holderToken = (login.json as { access_token: string }).access_token;
    const organizationToken = await logIn(platform.url, tenant);
    const offer = await fetchOffer(await createOffer(platform.url, tenant.apiKey, { signing: didKeyIssuer() }));
    const token = await getToken(platform.url, offer.code);
    const issuerDid = didKeyIssuer();
    const api = { "x-api-key": tenant.apiKey };
    const holder = { authorization: `Bearer ${holderToken}` };
    const dcql = structuredClone(BADGE_DCQL);
    dcql.credentials[0]!.meta.vct_values = [`${platform.url.schema}/schemas/employee-badge/v1`];
    const holderKey = generateEd25519Jwk();
    seeds.push(
      {
        service: "trust-registry",
        method: "POST",
        path: "/v1/apply",
        headers: {},
        body: { name: "Org", email: "a@example.test", password: "Sturdy-Passw0rd", tenant: "t-seed" },
      },
      {
        service: "trust-registry",
        method: "POST",
        path: "/v1/auth/login",
        headers: {},
        body: { uuid: tenant.uuid, password: "Wrong-Passw0rd" },
      },
      {
        service: "trust-registry",
        method: "POST",
        path: "/v1/did/import",
        headers: { authorization: `Bearer ${organizationToken}` },
        body: { did: issuerDid.issuer_did, private_key: issuerDid.issuer_private_key },
      },
      {
        service: "credential-issuer",
        method: "POST",
        path: "/v1/offers",
        headers: api,
        body: {
          credential: { config_id: BADGE_CONFIG, claims: BADGE_CLAIMS },
          flow: "pre-authorized",
          ...issuerDid,
          holder_did: issuerDid.issuer_did,
          expires_in: 600,
        },
      },
      {
        service: "credential-issuer",
        method: "POST",
        path: "/credential",
        headers: { authorization: `Bearer ${token.accessToken}` },
        body: { credential_configuration_id: BADGE_CONFIG, proofs: { jwt: ["a.b.c"] } },
      },
      {
        service: "credential-issuer",
        method: "POST",
        path: "/notification",
        headers: { authorization: `Bearer ${token.accessToken}` },
        body: { notification_id: "n", event: "credential_accepted", event_description: "d" },
      },
      {
        service: "auth-server",
        method: "POST",
        path: "/v1/token",
        form: true,
        headers: {},
        body: { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": "code", tx_code: "1234" },
      },
      {
        service: "auth-server",
        method: "POST",
        path: "/v1/token",
        form: true,
        headers: {},
        body: {
          grant_type: "authorization_code",
          code: "code",
          code_verifier: "v".repeat(43),
          redirect_uri: "https://wallet.example/cb",
          client_id: "wallet",
        },
      },
      {
        service: "auth-server",
        method: "POST",
        path: "/v1/par",
        form: true,
        headers: {},
        body: {
          response_type: "code",
          client_id: "wallet",
          redirect_uri: "https://wallet.example/cb",
          code_challenge: "c".repeat(43),
          code_challenge_method: "S256",
          scope: BADGE_CONFIG,
          state: "s",
        },
      },
      {
        service: "verifier",
        method: "POST",
        path: "/v1/verifier/authorization-request",
        headers: api,
        body: {
          dcql_query: dcql,
          verifier_private_key: generateEd25519Jwk().d,
          verifier_client_id: "https://rp.example",
        },
      },
      {
        service: "verifier",
        method: "POST",
        path: "/v1/verifier/presentation",
        form: true,
        headers: {},
        body: { state: "s", vp_token: JSON.stringify({ badge: ["a~b~"] }) },
      },
      { service: "holder", method: "POST", path: "/v1/did", headers: holder, body: { method: "ledger" } },
      {
        service: "holder",
        method: "POST",
        path: "/v1/oid4vci/offer-details",
        headers: holder,
        body: { credential_offer_uri: offer.document.credential_issuer },
      },
      {
        service: "holder",
        method: "POST",
        path: "/v1/oid4vci/receive",
        headers: holder,
        body: {
          credential_offer_uri: "openid-credential-offer://?credential_offer_uri=x",
          holder_did: issuerDid.issuer_did,
          private_key: holderKey.d,
          credential_configuration_id: BADGE_CONFIG,
          notarize_on_ledger: false,
        },
      },
      {
        service: "holder",
        method: "POST",
        path: "/v1/oid4vp/request-details",
        headers: holder,
        body: { authorization_request_uri: "openid4vp://?client_id=x&request_uri=y" },
      },
      {
        service: "holder",
        method: "POST",
        path: "/v1/oid4vp/presentation",
        headers: holder,
        body: {
          authorization_request_uri: "openid4vp://?client_id=x&request_uri=y",
          selected_credentials: [
            {
              credential_id: "6f1c1c1e-1b1a-4c1d-8e1f-1a1b1c1d1e1f",
              query_id: "badge",
              disclosed_claims: ["given_name"],
            },
          ],
          holder_did: issuerDid.issuer_did,
          private_key: holderKey.d,
        },
      },
    );
    for (const service of SERVICE_NAMES) {
      operations.push(...(await operationsOf(service, `http://localhost:${SERVICE_PORTS[service] + PORT_OFFSET}`)));
    }
  }, 120_000);

  afterAll(async () => {
    await platform?.close();
  });

  /** One request of `operation` with markers where `choice` says; the error body must not contain any. */
  async function probe(
    operation: Operation,
    choice: { field: number; wrap: number; credentials: number; extraKey: boolean },
  ): Promise<string | undefined> {
    const marker = newMarker();
    const wrap = wrappings[choice.wrap]!;
    let path = operation.path;
    for (const name of operation.pathParams) path = path.replace(`{${name}}`, encodeURIComponent(text(wrap(marker))));
    const query = new URLSearchParams();
    for (const name of operation.queryParams) query.set(name, text(wrap(marker)));
    if (choice.extraKey) query.set(marker, marker);
    const headers: Record<string, string> = {};
    // 0: valid credentials (reach the handler), 1: none, 2: marker credentials.
    if (choice.credentials === 0) {
      headers["x-api-key"] = tenant.apiKey;
      if (operation.service === "holder") headers.authorization = `Bearer ${holderToken}`;
    } else if (choice.credentials === 2) {
      headers["x-api-key"] = marker;
      headers.authorization = `Bearer ${marker}`;
      headers.dpop = `${marker}.${marker}.${marker}`;
    }
    let body: string | undefined;
    if (operation.bodyType) {
      const fields: Record<string, unknown> = {};
      operation.bodyFields.forEach((name, index) => {
        // One field carries the wrapped marker; the others the bare marker (so each reaches its own check first).
        fields[name] = index === choice.field % Math.max(1, operation.bodyFields.length) ? wrap(marker) : marker;
      });
      if (choice.extraKey || operation.bodyFields.length === 0) fields[marker] = marker;
      if (operation.bodyType === "form") {
        headers["content-type"] = "application/x-www-form-urlencoded";
        body = formBody(fields);
      } else {
        headers["content-type"] = "application/json";
        body = JSON.stringify(fields);
      }
    }
    const base = `http://localhost:${SERVICE_PORTS[operation.service] + PORT_OFFSET}`;
    const search = query.toString();
    const result = await http(`${base}${path}${search ? `?${search}` : ""}`, {
      method: operation.method,
      headers,
      body,
    });
    if (!isError(result.status)) return undefined;
    return result.text.toLowerCase().includes(marker)
      ? `${operation.method} ${operation.path} ${JSON.stringify(choice)} -> ${result.status} ${result.text.slice(0, 300)}`
      : undefined;
  }

  it("finds the public routes of every service", () => {
    for (const service of SERVICE_NAMES) {
      expect(operations.filter((operation) => operation.service === service).length, service).toBeGreaterThan(0);
    }
  });

  it("no error answer of any public route contains a marker sent in its path, query, body or credentials", async () => {
    const echoes: string[] = [];
    const choice = fc.record({
      field: fc.nat({ max: 20 }),
      wrap: wrapping,
      credentials: fc.integer({ min: 0, max: 2 }),
      extraKey: fc.boolean(),
    });
    for (const operation of operations) {
      await fc.assert(
        fc.asyncProperty(choice, async (picked) => {
          const echo = await probe(operation, picked);
          if (echo) echoes.push(echo);
        }),
        { numRuns: 12, seed: 30 },
      );
      // Every wrapping on every field once more with valid credentials, so each parser is reached.
      for (let wrap = 0; wrap < wrappings.length; wrap++) {
        for (let field = 0; field < Math.max(1, operation.bodyFields.length); field++) {
          const echo = await probe(operation, { field, wrap, credentials: 0, extraKey: false });
          if (echo) echoes.push(echo);
        }
      }
    }
    expect(echoes).toEqual([]);
  }, 600_000);

  it("no error answer contains a marker put in any one field (or key) of a request the route otherwise accepts", async () => {
    const echoes: string[] = [];
    const base = (service: ServiceName) => `http://localhost:${SERVICE_PORTS[service] + PORT_OFFSET}`;
    const send = async (seed: Seed, body: unknown, marker: string, what: string) => {
      const fields = body as Record<string, unknown>;
      const result = await http(`${base(seed.service)}${seed.path}`, {
        method: seed.method,
        headers: {
          ...seed.headers,
          "content-type": seed.form ? "application/x-www-form-urlencoded" : "application/json",
        },
        body: seed.form ? formBody(fields) : JSON.stringify(body),
      });
      if (isError(result.status) && result.text.toLowerCase().includes(marker)) {
        echoes.push(`${seed.method} ${seed.path} ${what} -> ${result.status} ${result.text.slice(0, 300)}`);
      }
    };
    for (const seed of seeds) {
      for (const [index, wrap] of wrappings.entries()) {
        const marker = newMarker();
        const variants = leafVariants(seed.body, wrap, marker);
        for (const [at, variant] of variants.entries()) await send(seed, variant, marker, `variant ${at}/${index}`);
      }
      // fast-check: markers in several leaves at once, with random wrappings.
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.nat(), wrapping), { minLength: 2, maxLength: 4 }), async (picks) => {
          const marker = newMarker();
          let body: unknown = seed.body;
          for (const [pick, wrap] of picks) {
            const variants = leafVariants(body, wrappings[wrap]!, marker);
            body = variants[pick % variants.length];
          }
          await send(seed, body, marker, JSON.stringify(picks));
        }),
        { numRuns: 15, seed: 30 },
      );
    }
    expect(echoes).toEqual([]);
  }, 600_000);

  it("unknown paths answer a fixed text", async () => {
    const marker = newMarker();
    for (const service of SERVICE_NAMES) {
      const result = await http(`http://localhost:${SERVICE_PORTS[service] + PORT_OFFSET}/v1/${marker}/${marker}`);
      expect(result.status, service).toBe(404);
      expect(result.text.toLowerCase(), service).not.toContain(marker);
    }
  });
});
