import {
  createPlatform,
  type IssuerStatus,
  type RunningOperator,
  startOperator,
  type TenantStatus,
} from "@attesto/operator";
import { TEST_SERVICE_IDENTITIES } from "@attesto/runtime/testing";
import { type InteropPlatform, startInteropPlatform } from "../../interop/support/platform.js";
import { toStoredSecret } from "./examples.js";
import { FakeKubeApiServer, type StoredObject } from "./fake-kube-apiserver.js";
import { waitFor } from "./wait-for.js";

export const GROUP = "attesto.dev";
export const VERSION = "v1alpha1";
export const NS = "attesto-tenants";

type Condition = NonNullable<(TenantStatus | IssuerStatus)["conditions"]>[number];

/** A resource's condition of `type`, if it has one. */
export const conditionOf = (object: StoredObject | undefined, type: string): Condition | undefined =>
  (object?.status as TenantStatus | IssuerStatus | undefined)?.conditions?.find((c) => c.type === type);

/**
 * The whole loop a platform team runs: the real trust registry, credential issuer and verifier
 * (the all-in-one launcher on their own schemas and ports), a list/watch API server, and one
 * operator (no leader election) between them. Resources go in through `apply`, as `kubectl apply`.
 */
export class OperatorOnPlatform {
  private constructor(
    readonly platform: InteropPlatform,
    readonly server: FakeKubeApiServer,
    readonly operator: RunningOperator,
  ) {}

  static async start(options: { portOffset: number; label: string }): Promise<OperatorOnPlatform> {
    const platform = await startInteropPlatform(options);
    const server = await new FakeKubeApiServer().start();
    const operator = await startOperator({
      kubeConfig: server.kubeConfig(),
      platform: createPlatform({
        trustRegistryUrl: platform.internalUrl("trust-registry"),
        credentialIssuerUrl: platform.internalUrl("credential-issuer"),
        verifierUrl: platform.internalUrl("verifier"),
        identityKey: TEST_SERVICE_IDENTITIES.privateKeys.operator,
        timeoutMs: 10_000,
      }),
      identity: "operator-0",
      leaderElection: false,
      http: { host: "127.0.0.1", port: 0 },
      maxAttempts: 5,
      baseDelayMs: 50,
      maxDelayMs: 500,
    });
    return new OperatorOnPlatform(platform, server, operator);
  }

  /** Applies Secrets and Attesto resources (`kind` Tenant, Issuer, VerifierPolicy). */
  apply(documents: StoredObject[]): void {
    for (const document of documents) {
      if (document.kind === "Secret") this.server.apply("", "v1", "secrets", toStoredSecret(document));
      else {
        const plural =
          document.kind === "VerifierPolicy" ? "verifierpolicies" : `${String(document.kind).toLowerCase()}s`;
        this.server.apply(GROUP, VERSION, plural, document);
      }
    }
  }

  /** The Attesto resource `plural/name` in the tenants' namespace. */
  get(plural: "tenants" | "issuers" | "verifierpolicies", name: string): StoredObject | undefined {
    return this.server.get(GROUP, plural, NS, name);
  }

  /** Waits for `plural/name` to be Ready=True and answers it. */
  ready(plural: "tenants" | "issuers" | "verifierpolicies", name: string): Promise<StoredObject> {
    return waitFor(
      () => {
        const found = this.get(plural, name);
        return conditionOf(found, "Ready")?.status === "True" && found;
      },
      `${plural}/${name} Ready`,
      30_000,
    );
  }

  /** The API key the operator stored in the tenant's Secret (`<tenant>-api-key`). */
  apiKeyOf(tenant: string): string {
    const data = (this.server.get("", "secrets", NS, `${tenant}-api-key`)?.data ?? {}) as Record<string, string>;
    return Buffer.from(data["api-key"] ?? "", "base64").toString("utf8");
  }

  async close(): Promise<void> {
    await this.operator.close();
    await this.server.close();
    await this.platform.close();
  }
}
