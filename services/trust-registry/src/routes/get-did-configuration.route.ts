import type { App } from "@attesto/runtime/http";
import { TENANT_ID_MAX_LENGTH } from "@attesto/runtime/tenant-id";
import { z } from "zod";
import { createDidConfiguration } from "../domain/create-did-configuration.js";
import { DID_CONFIGURATION_CONTEXT } from "../domain/create-domain-linkage-credential.js";
import type { TrustRegistryDependencies } from "../domain/ports.js";

/** The tenant as it is written (not lowercased), at most the tenant identifier's length (longer paths: the router's 414). */
const zParams = z.object({ tenant: z.string().min(1).max(TENANT_ID_MAX_LENGTH) });

/** The DID Configuration Resource (DIF Well Known DID Configuration). */
const zDidConfiguration = z.object({
  "@context": z.literal(DID_CONFIGURATION_CONTEXT),
  linked_dids: z.array(z.string()),
});

/** GET /.well-known/did-configuration.json/:tenant (public). */
export function registerGetDidConfigurationRoute(app: App, domain: TrustRegistryDependencies): void {
  app.get(
    "/.well-known/did-configuration.json/:tenant",
    { schema: { params: zParams, response: { 200: zDidConfiguration } } },
    async (request) => {
      const linkedDids = await createDidConfiguration(domain, request.params.tenant);
      return { "@context": DID_CONFIGURATION_CONTEXT, linked_dids: linkedDids };
    },
  );
}
