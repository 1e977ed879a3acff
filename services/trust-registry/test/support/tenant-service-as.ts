import { tenantV1 } from "@attesto/proto";
import { clientInterceptors, type ServiceIdentity, serverInterceptors } from "@attesto/runtime/rpc";
import { testCredentialSigner, testCredentialVerifier } from "@attesto/runtime/testing";
import { type Client, createClient, createRouterTransport } from "@connectrpc/connect";
import pino from "pino";
import { TenantServiceRpc } from "../../src/rpc/tenant-service.rpc.js";
import type { TestRegistry } from "./test-registry.js";

/** TenantService as a given calling service reaches it (real service-credential check and caller policy). */
export function tenantServiceAs(
  registry: TestRegistry,
  caller: ServiceIdentity,
): Client<typeof tenantV1.TenantService> {
  const transport = createRouterTransport(
    (router) => router.service(tenantV1.TenantService, new TenantServiceRpc(registry.domain)),
    {
      router: {
        interceptors: serverInterceptors(testCredentialVerifier("trust-registry"), pino({ level: "silent" })),
      },
      transport: {
        interceptors: clientInterceptors({ signer: testCredentialSigner(caller), audience: "trust-registry" }),
      },
    },
  );
  return createClient(tenantV1.TenantService, transport);
}
