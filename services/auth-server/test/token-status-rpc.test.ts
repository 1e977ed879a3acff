import { tokenStatusV1 } from "@attesto/proto";
import { clientInterceptors, serverInterceptors } from "@attesto/runtime/rpc";
import { testCredentialSigner, testCredentialVerifier } from "@attesto/runtime/testing";
import { type Client, Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { decodeJwt } from "jose";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerAuthServerRpc } from "../src/rpc/register-auth-server-rpc.js";
import { attestationHeaders, obtainAuthorizationCode, REDIRECT_URI } from "./support/authorization-code-flow.js";
import { startTestAuthServer, type TestAuthServer } from "./support/test-auth-server.js";
import { postToken } from "./support/token-requests.js";

/**
 * attesto.auth.v1.TokenStatusService over the auth server's real store and the real
 * service-credential interceptors: a replayed authorization code's token is reported revoked.
 * (The credential issuer refusing that token over real HTTP: test/browser/openid4vci-authorization-code.test.ts.)
 */
describe("TokenStatusService.GetTokenStatus", () => {
  let server: TestAuthServer;
  let tokenStatus: Client<typeof tokenStatusV1.TokenStatusService>;

  beforeAll(async () => {
    server = await startTestAuthServer();
    const transport = createRouterTransport(
      (router) => registerAuthServerRpc(router, { authorizationCodes: server.deps.authorizationCodes }),
      {
        router: {
          interceptors: serverInterceptors(testCredentialVerifier("auth-server"), pino({ level: "silent" })),
        },
        transport: {
          interceptors: clientInterceptors({
            signer: testCredentialSigner("credential-issuer"),
            audience: "auth-server",
          }),
        },
      },
    );
    tokenStatus = createClient(tokenStatusV1.TokenStatusService, transport);
  });
  afterAll(() => server.close());

  it("marks authorization-code tokens revocable and reports them revoked once their code is replayed", async () => {
    const issued = await obtainAuthorizationCode(server);
    const exchange = async () =>
      postToken(
        server.app,
        {
          grant_type: "authorization_code",
          code: issued.code,
          code_verifier: issued.pkce.codeVerifier,
          redirect_uri: REDIRECT_URI,
          client_id: issued.wallet.clientId,
        },
        { headers: await attestationHeaders(issued.wallet, { now: server.clock.now() }) },
      );
    const first = await exchange();
    expect(first.statusCode, first.body).toBe(200);
    const payload = decodeJwt(first.json().access_token);
    expect(payload).toMatchObject({ revocable: true, client_id: issued.wallet.clientId });
    const jti = String(payload.jti);

    expect(await tokenStatus.getTokenStatus({ jti })).toMatchObject({ revoked: false });
    expect((await exchange()).statusCode).toBe(400); // the replay
    expect(await tokenStatus.getTokenStatus({ jti })).toMatchObject({ revoked: true });
  });

  it("reports a jti it never revoked as not revoked", async () => {
    expect(await tokenStatus.getTokenStatus({ jti: "never-issued" })).toMatchObject({ revoked: false });
  });

  it("INVALID_ARGUMENT for an empty or oversized jti", async () => {
    for (const jti of ["", "x".repeat(256)]) {
      const error = await tokenStatus.getTokenStatus({ jti }).then(
        () => undefined,
        (caught: unknown) => ConnectError.from(caught),
      );
      expect(error?.code).toBe(Code.InvalidArgument);
    }
  });

  it("refuses a caller without a service credential", async () => {
    const anonymous = createClient(
      tokenStatusV1.TokenStatusService,
      createRouterTransport(
        (router) => registerAuthServerRpc(router, { authorizationCodes: server.deps.authorizationCodes }),
        {
          router: {
            interceptors: serverInterceptors(testCredentialVerifier("auth-server"), pino({ level: "silent" })),
          },
        },
      ),
    );
    const error = await anonymous.getTokenStatus({ jti: "any" }).then(
      () => undefined,
      (caught: unknown) => ConnectError.from(caught),
    );
    expect(error?.code).toBe(Code.Unauthenticated);
  });
});
