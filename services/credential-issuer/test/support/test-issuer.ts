import { randomBytes, type webcrypto } from "node:crypto";
import { issuanceV1 } from "@attesto/proto";
import { createAccessTokenVerifier } from "@attesto/protocol";
import type { CacheInvalidations } from "@attesto/runtime/cache";
import type { App } from "@attesto/runtime/http";
import { clientInterceptors, type ServiceIdentity, serverInterceptors } from "@attesto/runtime/rpc";
import { createServiceContext, type ServiceContext } from "@attesto/runtime/service";
import { testCredentialSigner, testCredentialVerifier, testIdentityEnv } from "@attesto/runtime/testing";
import { createTestDatabase, type TestDatabase } from "@attesto/store";
import { type Client, createClient, createRouterTransport } from "@connectrpc/connect";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { buildApp } from "../../src/app.js";
import { type CredentialIssuerConfig, loadCredentialIssuerConfig } from "../../src/config.js";
import { createDependencies } from "../../src/dependencies.js";
import type { IssuerDependencies } from "../../src/domain/ports.js";
import { registerIssuerRpc } from "../../src/rpc/register-issuer-rpc.js";
import { credentialIssuer } from "../../src/service.js";
import { migrations } from "../../src/store/migrations/index.js";
import { createDoubles, type Doubles } from "./doubles.js";

export const ISSUER_URL = "https://issuer.example";
export const AS_URL = "https://as.example";
export const ISSUER_ID = `${ISSUER_URL}/acme`;

export interface AccessTokenInput {
  tenant?: string;
  offerId: string;
  credentialConfigurationIds?: string[];
  dpopRequired?: boolean;
  jkt?: string;
  /** Overrides of any claim (undefined removes it). */
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  /** Sign with another key than the published one. */
  key?: webcrypto.CryptoKey;
}

export interface TestIssuer {
  database: TestDatabase<unknown>;
  context: ServiceContext<CredentialIssuerConfig>;
  deps: IssuerDependencies;
  app: App;
  doubles: Doubles;
  /** GrantService as the authorization server calls it (credential check and error mapping included). */
  grants: Client<typeof issuanceV1.GrantService>;
  /** The clock the issuer runs on; tests move it. */
  clock: { now: Date; advance(seconds: number): void };
  /** An RFC 9068 access token as the authorization server signs it. */
  accessToken(input: AccessTokenInput): Promise<string>;
  close(): Promise<void>;
}

/**
 * `env`: extra configuration variables (e.g. CREDENTIAL_DPOP_NONCE_STATUS); `cacheInvalidations`:
 * the listener the coherent caches use (none by default: they read through).
 */
export async function startTestIssuer(
  env: Record<string, string> = {},
  options: { cacheInvalidations?: CacheInvalidations } = {},
): Promise<TestIssuer> {
  const database = await createTestDatabase<unknown>({ prefix: "credential_issuer", migrations });
  const config = loadCredentialIssuerConfig({
    DATABASE_URL: database.url,
    ...testIdentityEnv("credential-issuer"),
    PUBLIC_URL: ISSUER_URL,
    LOG_LEVEL: "silent",
    AUTH_SERVER_URL: AS_URL,
    NONCE_SECRET: "n".repeat(40),
    KEY_ENCRYPTION_KEYS: `test1:${randomBytes(32).toString("base64url")}`,
    ...env,
  });
  const doubles = createDoubles();
  const clock = {
    now: new Date(),
    advance(seconds: number) {
      this.now = new Date(this.now.getTime() + seconds * 1000);
    },
  };
  const base = createServiceContext(credentialIssuer.definition, config, database.db, undefined, {
    ...(options.cacheInvalidations ? { cacheInvalidations: options.cacheInvalidations } : {}),
    clock: () => clock.now,
  });
  const context: ServiceContext<CredentialIssuerConfig> = {
    ...base,
    rpcClient: (service, target) => doubles.clientFor(service, target.audience),
  };
  const asKeys = await generateKeyPair("ES256", { extractable: true });
  const asJwk: JWK = { ...(await exportJWK(asKeys.publicKey)), kid: "as-key-1", alg: "ES256", use: "sig" };
  const deps = createDependencies(context, {
    accessTokens: createAccessTokenVerifier({ jwks: { keys: [asJwk] }, issuer: AS_URL, now: context.clock }),
  });
  const app = await buildApp(context, deps);

  // The internal port as each caller reaches it: the auth server redeems grants.
  const rpcTransportAs = (caller: ServiceIdentity) =>
    createRouterTransport((router) => registerIssuerRpc(router, deps), {
      router: {
        interceptors: serverInterceptors(testCredentialVerifier("credential-issuer"), { error() {} } as never),
      },
      transport: {
        interceptors: clientInterceptors({ signer: testCredentialSigner(caller), audience: "credential-issuer" }),
      },
    });

  return {
    database,
    context,
    deps,
    app,
    doubles,
    grants: createClient(issuanceV1.GrantService, rpcTransportAs("auth-server")),
    clock,
    async accessToken(input) {
      const now = Math.floor(clock.now.getTime() / 1000);
      const tenant = input.tenant ?? "acme";
      const claims: Record<string, unknown> = {
        iss: AS_URL,
        aud: `${ISSUER_URL}/${tenant}`,
        sub: input.offerId,
        iat: now,
        exp: now + 3600,
        jti: randomBytes(12).toString("base64url"),
        tenant,
        offer_id: input.offerId,
        credential_configuration_ids: input.credentialConfigurationIds ?? ["university-diploma"],
        dpop_required: input.dpopRequired ?? false,
        ...(input.jkt === undefined ? {} : { cnf: { jkt: input.jkt } }),
        ...input.claims,
      };
      for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
      return new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: "as-key-1", ...input.header })
        .sign(input.key ?? asKeys.privateKey);
    },
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
