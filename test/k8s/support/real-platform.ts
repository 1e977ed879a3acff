import { OPERATOR_CALLER, type Platform } from "@attesto/operator";
import { issuerConfigurationV1, keysV1, tenantV1, verifierPolicyV1 } from "@attesto/proto";
import { createRpcClient, type ServiceIdentity } from "@attesto/runtime/rpc";
import { testCredentialSigner } from "@attesto/runtime/testing";
import type { DescService } from "@bufbuild/protobuf";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import { type InteropPlatform, startInteropPlatform } from "../../interop/support/platform.js";

export interface PlatformCall {
  /** The RPC method, e.g. "ApplyTenant". */
  method: string;
  tenant: string;
}

/** The tenant a request names (directly, or in the configuration or policy it carries). */
function tenantOf(request: unknown): string {
  const value = request as { tenant?: string; configuration?: { tenant?: string }; policy?: { tenant?: string } };
  return value?.tenant ?? value?.configuration?.tenant ?? value?.policy?.tenant ?? "";
}

const methodName = (property: string) => property.charAt(0).toUpperCase() + property.slice(1);

/**
 * The real trust registry, credential issuer and verifier (with the ledger, schema registry and auth
 * server they rely on) started by the all-in-one launcher on their own PostgreSQL schemas and ports,
 * for the operator suites. The operator reaches them over HTTP (Connect) as identity "operator".
 * At the operator's edge — the network between it and the platform — every call is recorded and a
 * test may make the next calls of a method fail (`fail`), as an unreachable or refusing platform
 * would; the services themselves are never replaced. The trust registry reads the suite's clock.
 */
export class OperatorPlatform {
  readonly calls: PlatformCall[] = [];
  private readonly failures: Array<{ method: string; code: Code; remaining: number }> = [];

  private constructor(readonly services: InteropPlatform) {}

  static async start(options: { portOffset: number; label: string; clock?: () => Date }): Promise<OperatorPlatform> {
    const services = await startInteropPlatform({
      portOffset: options.portOffset,
      label: options.label,
      trustRegistryClock: options.clock,
    });
    return new OperatorPlatform(services);
  }

  close(): Promise<void> {
    return this.services.close();
  }

  /** Forgets the recorded calls and pending failures (between tests). */
  reset(): void {
    this.calls.splice(0);
    this.failures.splice(0);
  }

  /** The next `times` calls of `method` (e.g. "ApplyTenant") fail with `code` before they reach the platform. */
  fail(method: string, code: Code, times = 1): void {
    this.failures.push({ method, code, remaining: times });
  }

  callsOf(method: string, tenant?: string): PlatformCall[] {
    return this.calls.filter((call) => call.method === method && (tenant === undefined || call.tenant === tenant));
  }

  /** The credential issuer identifier of a tenant (what its signing certificate must name). */
  issuerOf(tenant: string): string {
    return `${this.services.url("credential-issuer")}/${tenant}`;
  }

  /** A client of one internal service as `caller`, over HTTP. */
  client<S extends DescService>(
    service: S,
    callee: "trust-registry" | "credential-issuer" | "verifier",
    caller: ServiceIdentity = OPERATOR_CALLER,
  ): Client<S> {
    return createRpcClient(service, {
      baseUrl: this.services.internalUrl(callee),
      audience: callee,
      signer: testCredentialSigner(caller),
      timeoutMs: 10_000,
    });
  }

  /** The platform clients the operator is given: as "operator", recorded, with injected failures. */
  platform(): Platform {
    return {
      tenants: this.edge(this.client(tenantV1.TenantService, "trust-registry")),
      keys: this.edge(this.client(keysV1.KeyCustodyService, "trust-registry")),
      issuers: this.edge(this.client(issuerConfigurationV1.IssuerService, "credential-issuer")),
      verifierPolicies: this.edge(this.client(verifierPolicyV1.VerifierPolicyService, "verifier")),
    };
  }

  /** The tenant as the platform has it, or undefined when it is unknown or deactivated. */
  async tenant(tenant: string) {
    try {
      return await this.client(tenantV1.TenantService, "trust-registry").getTenant({ tenant });
    } catch (error) {
      if (ConnectError.from(error).code === Code.NotFound) return undefined;
      throw error;
    }
  }

  /** Whether the platform accepts `apiKey` (asked as the verifier does on every request). */
  async apiKeyValid(apiKey: string | undefined): Promise<boolean> {
    if (!apiKey) return false;
    const tenants = this.client(tenantV1.TenantService, "trust-registry", "verifier");
    return (await tenants.authenticateApiKey({ apiKey })).outcome === tenantV1.ApiKeyOutcome.VALID;
  }

  /** A tenant's webhooks and signing secret (as the scheduler reads them to deliver). */
  webhooks(tenant: string) {
    return this.client(tenantV1.TenantService, "trust-registry", "scheduler").getWebhooks({ tenant });
  }

  /** The certificate a tenant's X.509 credentials are signed with (as the credential issuer reads it). */
  signingCertificate(tenant: string) {
    return this.client(keysV1.KeyCustodyService, "trust-registry", "credential-issuer").getSigningCertificate({
      tenant,
    });
  }

  /** The tenant's issuer configuration on the credential issuer, or undefined. */
  async issuerConfiguration(tenant: string) {
    try {
      const issuers = this.client(issuerConfigurationV1.IssuerService, "credential-issuer");
      return (await issuers.getIssuerConfiguration({ tenant })).configuration;
    } catch (error) {
      if (ConnectError.from(error).code === Code.NotFound) return undefined;
      throw error;
    }
  }

  /** A verifier policy as the verifier holds it, or undefined. */
  async policy(tenant: string, name: string) {
    try {
      const policies = this.client(verifierPolicyV1.VerifierPolicyService, "verifier");
      return (await policies.getPolicy({ tenant, name })).policy;
    } catch (error) {
      if (ConnectError.from(error).code === Code.NotFound) return undefined;
      throw error;
    }
  }

  /** Records every call of `client` and throws the failures due for it before it leaves. */
  private edge<C extends object>(client: C): C {
    return new Proxy(client, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== "function" || typeof property !== "string") return value;
        return (request: unknown, options?: unknown) => {
          const method = methodName(property);
          this.calls.push({ method, tenant: tenantOf(request) });
          const failure = this.failures.find((f) => f.method === method && f.remaining > 0);
          if (failure) {
            failure.remaining--;
            return Promise.reject(new ConnectError(`injected ${Code[failure.code]}`, failure.code));
          }
          return value.call(target, request, options);
        };
      },
    });
  }
}
