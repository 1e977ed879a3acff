import { verifierPolicyV1 } from "@attesto/proto";
import { callerKey, type ServiceCredentialSigner } from "@attesto/runtime/rpc";
import { type Client, type Code, createClient } from "@connectrpc/connect";
import { InjectedFailures, serviceCredentialTransport } from "./rpc-double.js";

/**
 * The verifier's VerifierPolicyService in memory, behind the real service-credential check (audience
 * "verifier"): policies by `tenant/name`, every call recorded, `fail(method, code)` injects failures.
 * (The real verifier is driven in operator-verifier-policy.test.ts.)
 */
export class InMemoryVerifierPolicies {
  readonly policies = new Map<string, verifierPolicyV1.VerifierPolicy>();
  readonly calls: Array<{ method: string; caller: string; tenant: string; name: string }> = [];
  private readonly failures = new InjectedFailures();

  fail(method: string, code: Code, times = 1): void {
    this.failures.fail(method, code, times);
  }

  callsOf(method: string) {
    return this.calls.filter((call) => call.method === method);
  }

  private enter(method: string, tenant: string, name: string, caller: string) {
    this.calls.push({ method, caller, tenant, name });
    this.failures.throwIfDue(method);
  }

  client(signer: ServiceCredentialSigner): Client<typeof verifierPolicyV1.VerifierPolicyService> {
    const transport = serviceCredentialTransport(
      (router) =>
        router.service(verifierPolicyV1.VerifierPolicyService, {
          applyPolicy: (request, context) => {
            const policy = request.policy!;
            this.enter("ApplyPolicy", policy.tenant, policy.name, context.values.get(callerKey));
            const key = `${policy.tenant}/${policy.name}`;
            const changed = this.policies.get(key)?.digest !== policy.digest;
            if (changed) this.policies.set(key, policy);
            return { policy: this.policies.get(key), changed };
          },
          deletePolicy: (request, context) => {
            this.enter("DeletePolicy", request.tenant, request.name, context.values.get(callerKey));
            return { deleted: this.policies.delete(`${request.tenant}/${request.name}`) };
          },
        }),
      { audience: "verifier", signer },
    );
    return createClient(verifierPolicyV1.VerifierPolicyService, transport);
  }
}
