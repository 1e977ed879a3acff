import { verifierPolicyV1 } from "@attesto/proto";
import {
  callerKey,
  clientInterceptors,
  createServiceCredentialVerifier,
  type ServiceCredentialSigner,
  serverInterceptors,
} from "@attesto/runtime";
import { type Client, Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";

const silentLogger = { error() {} } as unknown as Parameters<typeof serverInterceptors>[1];

/**
 * The verifier's VerifierPolicyService in memory, behind the real service-credential check (audience
 * "verifier"): policies by `tenant/name`, every call recorded, `fail(method, code)` injects failures.
 * (The real verifier is driven in operator-verifier-policy.test.ts.)
 */
export class InMemoryVerifierPolicies {
  readonly policies = new Map<string, verifierPolicyV1.VerifierPolicy>();
  readonly calls: Array<{ method: string; caller: string; tenant: string; name: string }> = [];
  private readonly failures: Array<{ method: string; code: Code; remaining: number }> = [];

  /** `serviceAuthSecret`: the platform's SERVICE_AUTH_SECRET, which callers' credentials must be signed with. */
  constructor(private readonly serviceAuthSecret: string) {}

  fail(method: string, code: Code, times = 1): void {
    this.failures.push({ method, code, remaining: times });
  }

  callsOf(method: string) {
    return this.calls.filter((call) => call.method === method);
  }

  private enter(method: string, tenant: string, name: string, caller: string) {
    this.calls.push({ method, caller, tenant, name });
    const failure = this.failures.find((f) => f.method === method && f.remaining > 0);
    if (failure) {
      failure.remaining--;
      throw new ConnectError(`injected ${Code[failure.code]}`, failure.code);
    }
  }

  client(signer: ServiceCredentialSigner): Client<typeof verifierPolicyV1.VerifierPolicyService> {
    const transport = createRouterTransport(
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
      {
        router: {
          interceptors: serverInterceptors(
            createServiceCredentialVerifier({ secret: this.serviceAuthSecret, audience: "verifier" }),
            silentLogger,
          ),
        },
        transport: { interceptors: clientInterceptors({ signer, audience: "verifier", retries: 0 }) },
      },
    );
    return createClient(verifierPolicyV1.VerifierPolicyService, transport);
  }
}
