import { tenantV1 } from "@attesto/proto";
import {
  clientInterceptors,
  createServiceCredentialSigner,
  createServiceCredentialVerifier,
  serverInterceptors,
} from "@attesto/runtime";
import { type Client, createClient, createRouterTransport } from "@connectrpc/connect";
import pino from "pino";
import { TenantServiceRpc } from "../../src/rpc/tenant-service.rpc.js";
import { SERVICE_AUTH_SECRET, type TestRegistry } from "./test-registry.js";

/** TenantService as a given calling service reaches it (real service-credential check). */
export function tenantServiceAs(registry: TestRegistry, caller: string): Client<typeof tenantV1.TenantService> {
  const transport = createRouterTransport(
    (router) => router.service(tenantV1.TenantService, new TenantServiceRpc(registry.domain)),
    {
      router: {
        interceptors: serverInterceptors(
          createServiceCredentialVerifier({ secret: SERVICE_AUTH_SECRET, audience: "trust-registry" }),
          pino({ level: "silent" }),
        ),
      },
      transport: {
        interceptors: clientInterceptors({
          signer: createServiceCredentialSigner({ secret: SERVICE_AUTH_SECRET, caller }),
          audience: "trust-registry",
        }),
      },
    },
  );
  return createClient(tenantV1.TenantService, transport);
}
