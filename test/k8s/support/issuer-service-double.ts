import { createHash } from "node:crypto";
import { issuerConfigurationV1 } from "@attesto/proto";
import { callerKey, type ServiceCredentialSigner } from "@attesto/runtime/rpc";
import { create, toJsonString } from "@bufbuild/protobuf";
import { type Client, Code, ConnectError, createClient } from "@connectrpc/connect";
import { InjectedFailures, serviceCredentialTransport } from "./rpc-double.js";

/**
 * The credential issuer's IssuerService in memory, behind the real service-credential check (audience
 * "credential-issuer"): one configuration per tenant, idempotent by digest, every call recorded,
 * `fail(method, code)` injects failures. (The real IssuerService is tested in
 * services/credential-issuer/test/issuer-configuration.test.ts.)
 */
export class InMemoryIssuerConfigurations {
  readonly configurations = new Map<string, issuerConfigurationV1.IssuerConfiguration>();
  readonly calls: Array<{ method: string; caller: string; tenant: string }> = [];
  private readonly failures = new InjectedFailures();

  fail(method: string, code: Code, times = 1): void {
    this.failures.fail(method, code, times);
  }

  callsOf(method: string) {
    return this.calls.filter((call) => call.method === method);
  }

  private enter(method: string, tenant: string, caller: string) {
    this.calls.push({ method, caller, tenant });
    this.failures.throwIfDue(method);
  }

  client(signer: ServiceCredentialSigner): Client<typeof issuerConfigurationV1.IssuerService> {
    const transport = serviceCredentialTransport(
      (router) =>
        router.service(issuerConfigurationV1.IssuerService, {
          applyIssuerConfiguration: (request, context) => {
            const declared = create(issuerConfigurationV1.IssuerConfigurationSchema, request.configuration);
            declared.digest = "";
            declared.updatedAt = "";
            this.enter("ApplyIssuerConfiguration", declared.tenant, context.values.get(callerKey));
            const digest = createHash("sha256")
              .update(toJsonString(issuerConfigurationV1.IssuerConfigurationSchema, declared))
              .digest("hex");
            const changed = this.configurations.get(declared.tenant)?.digest !== digest;
            if (changed) this.configurations.set(declared.tenant, { ...declared, digest });
            return { configuration: this.configurations.get(declared.tenant), changed };
          },
          deleteIssuerConfiguration: (request, context) => {
            this.enter("DeleteIssuerConfiguration", request.tenant, context.values.get(callerKey));
            return { deleted: this.configurations.delete(request.tenant) };
          },
          getIssuerConfiguration: (request, context) => {
            this.enter("GetIssuerConfiguration", request.tenant, context.values.get(callerKey));
            const configuration = this.configurations.get(request.tenant);
            if (!configuration) throw new ConnectError("no issuer configuration", Code.NotFound);
            return { configuration };
          },
        }),
      { audience: "credential-issuer", signer },
    );
    return createClient(issuerConfigurationV1.IssuerService, transport);
  }
}
