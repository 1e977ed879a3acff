import { issuerConfigurationV1 } from "@attesto/proto";
import { clientInterceptors, type ServiceIdentity, serverInterceptors } from "@attesto/runtime/rpc";
import { testCredentialSigner, testCredentialVerifier } from "@attesto/runtime/testing";
import { type Client, createClient, createRouterTransport } from "@connectrpc/connect";
import { registerIssuerRpc } from "../../src/rpc/register-issuer-rpc.js";
import type { TestIssuer } from "./test-issuer.js";

/** IssuerService as a given calling service reaches it (real service-credential check). */
export function issuerServiceAs(
  issuer: TestIssuer,
  caller: ServiceIdentity,
): Client<typeof issuerConfigurationV1.IssuerService> {
  const transport = createRouterTransport((router) => registerIssuerRpc(router, issuer.deps), {
    router: {
      interceptors: serverInterceptors(testCredentialVerifier("credential-issuer"), { error() {} } as never),
    },
    transport: {
      interceptors: clientInterceptors({
        signer: testCredentialSigner(caller),
        audience: "credential-issuer",
      }),
    },
  });
  return createClient(issuerConfigurationV1.IssuerService, transport);
}
