import { issuanceV1 } from "@attesto/proto";
import { generateP256Jwk, type P256PrivateJwk } from "@attesto/protocol";
import type { App } from "@attesto/runtime/http";
import { clientInterceptors, serverInterceptors } from "@attesto/runtime/rpc";
import { createServiceContext, type ServiceContext } from "@attesto/runtime/service";
import { testCredentialVerifier, testIdentityEnv } from "@attesto/runtime/testing";
import { createTestDatabase, openDatabase, type TestDatabase } from "@attesto/store";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import pino from "pino";
import { buildApp } from "../../src/app.js";
import { createGrantRedeemer, type GrantServiceClient } from "../../src/clients/grant-service.client.js";
import { type AuthServerConfig, loadAuthServerConfig } from "../../src/config.js";
import { createDependencies } from "../../src/dependencies.js";
import type { IssuerDisplay } from "../../src/domain/authorization/issuer-display.js";
import type { AuthServerDependencies, IssuerDisplaySource } from "../../src/domain/ports.js";
import { authServer } from "../../src/service.js";
import { migrations } from "../../src/store/migrations/index.js";
import { InMemoryGrantService } from "./in-memory-grant-service.js";

export const AUTH_URL = "http://localhost:8081";
export const TOKEN_URL = `${AUTH_URL}/v1/token`;
export const ISSUER_URL = "http://localhost:8082";
export const DPOP_NONCE_SECRET = "d".repeat(32);
/** Nothing listens here: calls fail as "unreachable". */
export const CLOSED_PORT_URL = "http://127.0.0.1:1";
export const PRE_AUTHORIZED_GRANT = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

export interface TestAuthServerOptions {
  /** `down`: the GrantService client points at a closed port. */
  grantService?: "memory" | "down";
  env?: Record<string, string>;
  /** The public URL (PUBLIC_URL); tests on a real port set the URL they listen on. */
  publicUrl?: string;
  /** `http`: the consent page reads the issuer metadata over HTTP from CREDENTIAL_ISSUER_URL (the production client). */
  issuerDisplay?: "static" | "http";
  /** Set CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER=true, as `npm start` does on loopback (default true); false: leave it unset. */
  trustDemoProvider?: boolean;
}

/** A clock tests move forward (expiry of request_uris, consent pages, codes). */
export interface TestClock {
  now(): Date;
  advance(seconds: number): void;
}

export function createTestClock(): TestClock {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance(seconds) {
      offsetMs += seconds * 1000;
    },
  };
}

/** What the credential issuer's metadata says about the test tenants (the consent page shows it). */
export const TEST_ISSUER_DISPLAY: Record<string, IssuerDisplay> = {
  acme: {
    name: "ACME University",
    configurations: {
      diploma_v1: {
        name: "University Diploma",
        description: "A degree awarded by ACME University",
        claims: [
          { path: ["given_name"], label: "Given name" },
          { path: ["family_name"], label: "Family name" },
          { path: ["degree"], label: "Degree" },
          { path: ["degree", "type"], label: "Degree type" },
          { path: ["degree", "name"], label: "Degree title" },
          { path: ["graduation_date"], label: "Graduation date" },
        ],
      },
      transcript_v1: {
        name: "Transcript of Records",
        description: undefined,
        claims: [
          { path: ["courses"], label: "Courses" },
          { path: ["grades"], label: "Grades" },
        ],
      },
    },
  },
};

/** The credential issuer metadata as a test double; `unavailable` tenants answer nothing. */
export class StaticIssuerDisplay implements IssuerDisplaySource {
  readonly requests: string[] = [];
  readonly unavailable = new Set<string>();
  constructor(private readonly displays: Record<string, IssuerDisplay> = TEST_ISSUER_DISPLAY) {}
  async describe(tenant: string): Promise<IssuerDisplay | undefined> {
    this.requests.push(tenant);
    return this.unavailable.has(tenant) ? undefined : this.displays[tenant];
  }
}

export interface TestAuthServer {
  app: App;
  config: AuthServerConfig;
  context: ServiceContext<AuthServerConfig>;
  deps: AuthServerDependencies;
  /** The GrantService client the auth server calls (tests replace its methods to make the issuer fail). */
  grantService: GrantServiceClient;
  grants: InMemoryGrantService;
  issuerDisplay: StaticIssuerDisplay;
  clock: TestClock;
  signingKey: P256PrivateJwk;
  close(): Promise<void>;
}

const logger = pino({ level: "silent" });

export function testConfig(
  databaseUrl: string,
  signingKey: P256PrivateJwk,
  env: Record<string, string> = {},
  publicUrl = AUTH_URL,
  trustDemoProvider = true,
) {
  return loadAuthServerConfig({
    DATABASE_URL: databaseUrl,
    ...testIdentityEnv("auth-server"),
    PUBLIC_URL: publicUrl,
    CREDENTIAL_ISSUER_URL: ISSUER_URL,
    ACCESS_TOKEN_SIGNING_KEY: JSON.stringify(signingKey),
    DPOP_NONCE_SECRET,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    RPC_TIMEOUT_MS: "2000",
    // The suites sign attestations with the demo provider, as `npm start` does; off by default.
    ...(trustDemoProvider ? { CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER: "true" } : {}),
    ...env,
  });
}

/**
 * The auth server on its own test schema (replay guard in PostgreSQL/PGlite), with an in-memory
 * GrantService double (its external edge) reached through the real service-credential interceptors.
 */
export async function startTestAuthServer(options: TestAuthServerOptions = {}): Promise<TestAuthServer> {
  const database: TestDatabase<unknown> = await createTestDatabase<unknown>({ prefix: "auth_server", migrations });
  // The embedded PGlite test server runs every client in one session: one connection (see trust-registry).
  const serviceDatabase = openDatabase<unknown>({
    url: database.url,
    schema: database.schema,
    poolMax: process.env.DATABASE_URL ? 4 : 1,
  });
  const signingKey = generateP256Jwk();
  const config = testConfig(
    database.url,
    signingKey,
    options.env,
    options.publicUrl,
    options.trustDemoProvider ?? true,
  );
  const clock = createTestClock();
  const context = createServiceContext(authServer.definition, config, serviceDatabase.db, undefined, {
    clock: clock.now,
  });
  const grants = new InMemoryGrantService();
  const grantService =
    options.grantService === "down"
      ? context.rpcClient(issuanceV1.GrantService, { baseUrl: CLOSED_PORT_URL, audience: "credential-issuer" })
      : createClient(
          issuanceV1.GrantService,
          createRouterTransport(grants.routes, {
            router: {
              interceptors: serverInterceptors(testCredentialVerifier("credential-issuer"), logger),
            },
            transport: { interceptors: clientInterceptors({ signer: context.signer, audience: "credential-issuer" }) },
          }),
        );
  const issuerDisplay = new StaticIssuerDisplay();
  grants.now = clock.now;
  const deps = createDependencies(context, {
    grants: createGrantRedeemer(grantService),
    ...(options.issuerDisplay === "http" ? {} : { issuerDisplay }),
  });
  const app = await buildApp(context, deps);
  return {
    app,
    config,
    context,
    deps,
    grantService,
    grants,
    issuerDisplay,
    clock,
    signingKey,
    async close() {
      await app.close();
      await serviceDatabase.close();
      await database.drop();
    },
  };
}

/** A form-encoded body. */
export function form(fields: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, item);
  }
  return params.toString();
}

export const FORM_HEADERS = { "content-type": "application/x-www-form-urlencoded" };
