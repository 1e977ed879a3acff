import { randomBytes } from "node:crypto";
import { tenantV1 } from "@attesto/proto";
import { didKeyFromPublicJwk, generateEd25519Jwk } from "@attesto/protocol";
import type { CacheInvalidations } from "@attesto/runtime/cache";
import type { App } from "@attesto/runtime/http";
import { createServiceContext, type ServiceContext } from "@attesto/runtime/service";
import { testIdentityEnv } from "@attesto/runtime/testing";
import {
  createTestDatabase,
  type DatabaseInvalidations,
  recordStatements,
  startTestCacheInvalidations,
  type TestDatabase,
} from "@attesto/store";
import type { DescService } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import { decodeJwt } from "jose";
import { buildApp } from "../../src/app.js";
import { createIssuerDocumentFetcher } from "../../src/clients/issuer-document-fetcher.js";
import { createStatusListTokens } from "../../src/clients/status-list-tokens.js";
import { loadVerifierConfig, type VerifierConfig } from "../../src/config.js";
import { createDependencies } from "../../src/dependencies.js";
import type { VerifierDependencies } from "../../src/domain/ports.js";
import { verifier } from "../../src/service.js";
import { migrations } from "../../src/store/migrations/index.js";
import { API_KEYS, PlatformEdges } from "./edges.js";

export const PUBLIC_URL = "http://verifier.attesto.test";
export const KEY_ENCRYPTION_KEYS = `test1:${randomBytes(32).toString("base64url")}`;

/** A clock tests can move forward (session expiry, KB-JWT age). */
export class TestClock {
  offsetMs = 0;
  now = () => new Date(Date.now() + this.offsetMs);
  advance(seconds: number) {
    this.offsetMs += seconds * 1000;
  }
}

export interface TestVerifier {
  app: App;
  edges: PlatformEdges;
  clock: TestClock;
  deps: VerifierDependencies;
  context: ServiceContext<VerifierConfig>;
  database: TestDatabase<unknown>;
  close(): Promise<void>;
}

/** The verifier on its own test schema, its edges in memory, its app ready for inject() (or listen()). */
export async function startTestVerifier(
  options: {
    env?: Record<string, string>;
    publicUrl?: string;
    /** A TenantService to authenticate API keys with instead of the in-memory double (other tenants). */
    tenants?: Client<typeof tenantV1.TenantService>;
    /** The listener the coherent caches use (none by default: they read through). */
    cacheInvalidations?: CacheInvalidations;
  } = {},
): Promise<TestVerifier> {
  const database = await createTestDatabase<unknown>({ prefix: "verifier", migrations });
  const config = loadVerifierConfig({
    DATABASE_URL: database.url,
    ...testIdentityEnv("verifier"),
    PUBLIC_URL: options.publicUrl ?? PUBLIC_URL,
    LOG_LEVEL: "silent",
    KEY_ENCRYPTION_KEYS,
    // Suites change the platform's trust anchors, registered issuers and issuer documents between tests.
    TRUST_ANCHORS_CACHE_SECONDS: "0",
    REGISTERED_ISSUERS_CACHE_SECONDS: "0",
    ISSUER_METADATA_CACHE_SECONDS: "0",
    ...options.env,
  });
  const edges = new PlatformEdges();
  const clock = new TestClock();
  const context: ServiceContext<VerifierConfig> = {
    ...createServiceContext(verifier.definition, config, database.db, undefined, {
      clock: clock.now,
      ...(options.cacheInvalidations ? { cacheInvalidations: options.cacheInvalidations } : {}),
    }),
    rpcClient: <S extends DescService>(service: S): Client<S> =>
      options.tenants && service.typeName === tenantV1.TenantService.typeName
        ? (options.tenants as unknown as Client<S>)
        : edges.rpcClient(service),
  };
  const deps = createDependencies(context, {
    // Issuers' web origins are the external edge: served from memory, through the real caching fetcher.
    issuerDocuments: createIssuerDocumentFetcher(edges.webClient, {
      cacheMs: config.ISSUER_METADATA_CACHE_SECONDS * 1000,
      maxEntries: 100,
    }),
    statusLists: createStatusListTokens(edges.webClient, {
      maxCacheSeconds: config.STATUS_LIST_MAX_CACHE_SECONDS,
      maxEntries: 100,
      now: () => clock.now().getTime(),
    }),
  });
  const app = await buildApp(context, deps);
  return {
    app,
    edges,
    clock,
    deps,
    context,
    database,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}

/** A test verifier whose coherent caches listen on PostgreSQL (as a launched service's do), with its pool's statements recorded. */
export interface ListeningTestVerifier {
  verifier: TestVerifier;
  invalidations: DatabaseInvalidations;
  statements: ReturnType<typeof recordStatements>;
  close(): Promise<void>;
}

/** `startTestVerifier` with a cache invalidation listener of its own and a statement recorder on its pool. */
export async function startListeningTestVerifier(): Promise<ListeningTestVerifier> {
  const invalidations = await startTestCacheInvalidations();
  const verifier = await startTestVerifier({ cacheInvalidations: invalidations });
  return {
    verifier,
    invalidations,
    statements: recordStatements(verifier.database.pool),
    async close() {
      await verifier.close();
      await invalidations.close();
    },
  };
}

/** The verifier's own signing identity, as an RP would configure it: an Ed25519 key and its did:key. */
export function verifierIdentity() {
  const privateJwk = generateEd25519Jwk();
  return { privateKey: privateJwk.d, did: didKeyFromPublicJwk(privateJwk), privateJwk };
}

export const pidQuery = (overrides: Record<string, unknown> = {}) => ({
  credentials: [
    {
      id: "pid",
      format: "dc+sd-jwt",
      meta: { vct_values: ["https://schemas.attesto.test/schemas/person-identification-data/v1"] },
      claims: [{ path: ["given_name"] }, { path: ["family_name"] }],
      ...overrides,
    },
  ],
});

export interface OpenedSession {
  sessionId: string;
  requestUri: string;
  authorizationRequest: string;
  requestUriId: string;
  /** Claims of the request object, as a wallet reads them. */
  request: {
    client_id: string;
    nonce: string;
    state: string;
    response_uri: string;
    client_metadata: Record<string, unknown>;
    [claim: string]: unknown;
  };
}

/** Creates a session as an RP and fetches its request object as a wallet. */
export async function openSession(
  verifierApp: App,
  body: Record<string, unknown> = {},
  apiKey: string = API_KEYS.verifier,
): Promise<OpenedSession> {
  const identity = verifierIdentity();
  const created = await verifierApp.inject({
    method: "POST",
    url: "/v1/verifier/authorization-request",
    headers: { "x-api-key": apiKey },
    payload: {
      dcql_query: pidQuery(),
      // With client_id_prefix the tenant's verifier certificate signs: no caller key.
      ...(body.client_id_prefix ? {} : { verifier_private_key: identity.privateKey, verifier_client_id: identity.did }),
      ...body,
    },
  });
  if (created.statusCode !== 201)
    throw new Error(`authorization request failed: ${created.statusCode} ${created.body}`);
  const { session_id, request_uri, authorization_request } = created.json();
  const requestUriId = request_uri.split("/").pop();
  const fetched = await verifierApp.inject({ method: "GET", url: `/v1/verifier/request/${requestUriId}` });
  if (fetched.statusCode !== 200) throw new Error(`request object fetch failed: ${fetched.statusCode}`);
  return {
    sessionId: session_id,
    requestUri: request_uri,
    authorizationRequest: authorization_request,
    requestUriId,
    request: decodeJwt(fetched.body) as OpenedSession["request"],
  };
}

/** Posts a direct_post response (form-encoded, as wallets do). */
export function postPresentation(verifierApp: App, form: Record<string, string>) {
  return verifierApp.inject({
    method: "POST",
    url: "/v1/verifier/presentation",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams(form).toString(),
  });
}

/** Reads a session's result as an RP (with the same-device response_code when given). */
export function readResult(
  verifierApp: App,
  sessionId: string,
  apiKey: string = API_KEYS.verifier,
  responseCode?: string,
) {
  const query = responseCode === undefined ? "" : `?response_code=${encodeURIComponent(responseCode)}`;
  return verifierApp.inject({
    method: "GET",
    url: `/v1/verifier/result/${sessionId}${query}`,
    headers: { "x-api-key": apiKey },
  });
}
