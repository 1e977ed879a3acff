import { randomBytes, randomUUID } from "node:crypto";
import { OPERATOR_CALLER, type Platform } from "@attesto/operator";
import { keysV1, tenantV1 } from "@attesto/proto";
import { callerKey, type ServiceIdentity, toConnectError } from "@attesto/runtime/rpc";
import { testCredentialSigner } from "@attesto/runtime/testing";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ConnectRouter, createClient, type HandlerContext } from "@connectrpc/connect";
import { checkImportedChain } from "../../../services/trust-registry/src/custody/imported-chain.js";
import { issuerNamesOf } from "../../../services/trust-registry/src/custody/issuer-names.js";
import { InMemoryIssuerConfigurations } from "./issuer-service-double.js";
import { InjectedFailures, serviceCredentialTransport } from "./rpc-double.js";
import { TEST_CREDENTIAL_ISSUER_URL, type TestCertificates } from "./test-certificates.js";
import { InMemoryVerifierPolicies } from "./verifier-policy-double.js";

interface TenantRecord {
  uuid: string;
  tenant: string;
  name: string;
  email: string;
  isIssuer: boolean;
  isVerifier: boolean;
  /** Valid API keys (ReplaceApiKey revokes the others). */
  apiKeys: string[];
  webhooks: Array<{ url: string; events: string[] }>;
  webhookSecret: string;
  /** Set by DeleteTenant: unknown to every call until ApplyTenant reactivates it. */
  deactivated?: boolean;
}

const RESERVED = ["u-", "svc-", "admin-", "api-", "www-"];

/**
 * The trust registry's TenantService and KeyCustodyService in memory, behind the real service
 * credential check and caller policy (most methods are the operator's). Records every call;
 * `fail(method, code, times)` injects failures.
 */
export class InMemoryTrustRegistry {
  /** The clock key custody's checks read (tests pass the same clock to the operator and certificates). */
  constructor(private readonly now: () => Date = () => new Date()) {}

  readonly tenants = new Map<string, TenantRecord>();
  readonly calls: Array<{ method: string; caller: string; tenant: string }> = [];
  credentialTypes = [
    { type: "university-diploma", version: "v1", vct: "https://example.test/vct/university-diploma" },
    { type: "employee-badge", version: "v1", vct: "https://example.test/vct/employee-badge" },
  ];
  setWebhooksImplemented = true;
  signingCertificate: TestCertificates | undefined;
  /** Certificates imported with ImportSigningCertificate (checked by key custody's own rules). */
  readonly importedCertificates = new Map<
    string,
    { keyId: string; chain: string[]; x5c: string[]; trustAnchor: string; fingerprint: string; notAfter: Date }
  >();
  /** The credential issuer's IssuerService (the operator's Issuer edge). */
  readonly issuer = new InMemoryIssuerConfigurations();
  /** The verifier's VerifierPolicyService (the operator's other platform edge). */
  readonly verifier = new InMemoryVerifierPolicies();
  private readonly failures = new InjectedFailures();

  fail(method: string, code: Code, times = 1): void {
    this.failures.fail(method, code, times);
  }

  callsOf(method: string) {
    return this.calls.filter((call) => call.method === method);
  }

  private enter(method: string, tenant: string, context: HandlerContext) {
    this.calls.push({ method, caller: context.values.get(callerKey), tenant });
    this.failures.throwIfDue(method);
  }

  private activeTenant(tenant: string): TenantRecord | undefined {
    const record = this.tenants.get(tenant);
    return record?.deactivated ? undefined : record;
  }

  private configurationsOf() {
    return this.credentialTypes.map((t) => ({
      id: t.version === "v1" ? t.type : `${t.type}-${t.version}`,
      type: t.type,
      version: t.version,
      vct: t.vct,
    }));
  }

  private message(record: TenantRecord): MessageInitShape<typeof tenantV1.TenantSchema> {
    return {
      accountUuid: record.uuid,
      tenant: record.tenant,
      name: record.name,
      roles: [
        ...(record.isIssuer ? [tenantV1.Role.ISSUER] : []),
        ...(record.isVerifier ? [tenantV1.Role.VERIFIER] : []),
      ],
      status: "APPROVED",
    };
  }

  readonly routes = (router: ConnectRouter) => {
    router.service(tenantV1.TenantService, {
      authenticateApiKey: (request, context) => {
        this.enter("AuthenticateApiKey", "", context);
        const record = [...this.tenants.values()].find((t) => !t.deactivated && t.apiKeys.includes(request.apiKey));
        return record
          ? { outcome: tenantV1.ApiKeyOutcome.VALID, tenant: this.message(record) }
          : { outcome: tenantV1.ApiKeyOutcome.INVALID };
      },
      listRegisteredIssuers: (_request, context) => {
        this.enter("ListRegisteredIssuers", "", context);
        const issuers = [...this.tenants.values()].filter((t) => !t.deactivated && t.isIssuer);
        return {
          issuers: issuers.map((t) => ({
            tenant: t.tenant,
            issuerUrl: `https://issuer.attesto.test/${t.tenant}`,
            dids: [],
          })),
          x509Roots: [],
        };
      },
      getTenant: (request, context) => {
        this.enter("GetTenant", request.tenant, context);
        const record = this.activeTenant(request.tenant);
        if (!record) throw new ConnectError("Tenant not found", Code.NotFound);
        return { tenant: this.message(record), credentialConfigurations: this.configurationsOf() };
      },
      applyTenant: (request, context) => {
        this.enter("ApplyTenant", request.tenant, context);
        if (!/^[a-z0-9_-]{1,100}$/.test(request.tenant) || RESERVED.some((p) => request.tenant.startsWith(p))) {
          throw new ConnectError("tenant is invalid", Code.InvalidArgument);
        }
        const existing = this.tenants.get(request.tenant);
        if (existing?.deactivated) {
          const apiKey = `attesto_test_${randomBytes(24).toString("hex")}`;
          Object.assign(existing, {
            name: request.name,
            isIssuer: request.isIssuer,
            isVerifier: request.isVerifier,
            apiKeys: [apiKey],
            deactivated: false,
          });
          return { tenant: this.message(existing), apiKey };
        }
        if (existing) {
          Object.assign(existing, {
            name: request.name,
            isIssuer: request.isIssuer,
            isVerifier: request.isVerifier,
          });
          return { tenant: this.message(existing), apiKey: "" };
        }
        const apiKey = `attesto_test_${randomBytes(24).toString("hex")}`;
        const record: TenantRecord = {
          uuid: randomUUID(),
          tenant: request.tenant,
          name: request.name,
          email: request.email,
          isIssuer: request.isIssuer,
          isVerifier: request.isVerifier,
          apiKeys: [apiKey],
          webhooks: [],
          webhookSecret: "",
        };
        this.tenants.set(request.tenant, record);
        return { tenant: this.message(record), apiKey };
      },
      replaceApiKey: (request, context) => {
        this.enter("ReplaceApiKey", request.tenant, context);
        const record = this.activeTenant(request.tenant);
        if (!record) throw new ConnectError("Tenant not found", Code.NotFound);
        const apiKey = `attesto_test_${randomBytes(24).toString("hex")}`;
        record.apiKeys = [apiKey];
        return { apiKey };
      },
      setWebhooks: (request, context) => {
        this.enter("SetWebhooks", request.tenant, context);
        if (!this.setWebhooksImplemented) throw new ConnectError("not implemented", Code.Unimplemented);
        const record = this.activeTenant(request.tenant);
        if (!record) throw new ConnectError("Tenant not found", Code.NotFound);
        record.webhooks = request.webhooks.map((w) => ({ url: w.url, events: [...w.events] }));
        let generatedSecret = "";
        if (request.secret) record.webhookSecret = request.secret;
        else if (!record.webhookSecret) {
          generatedSecret = randomBytes(32).toString("base64url");
          record.webhookSecret = generatedSecret;
        }
        return { generatedSecret };
      },
      getWebhooks: (request, context) => {
        this.enter("GetWebhooks", request.tenant, context);
        const record = this.activeTenant(request.tenant);
        if (!record) throw new ConnectError("Tenant not found", Code.NotFound);
        return { webhooks: record.webhooks, secret: record.webhookSecret };
      },
      revokeApiKeys: (request, context) => {
        this.enter("RevokeApiKeys", request.tenant, context);
        const record = this.activeTenant(request.tenant);
        if (!record) throw new ConnectError("Tenant not found", Code.NotFound);
        const revoked = record.apiKeys.length;
        record.apiKeys = [];
        return { revoked };
      },
      deleteTenant: (request, context) => {
        this.enter("DeleteTenant", request.tenant, context);
        const record = this.tenants.get(request.tenant);
        if (!record) return { found: false };
        const deactivated = !record.deactivated;
        const revokedApiKeys = record.apiKeys.length;
        Object.assign(record, { deactivated: true, apiKeys: [], webhooks: [], webhookSecret: "" });
        return { found: true, deactivated, revokedApiKeys };
      },
    });
    router.service(keysV1.KeyCustodyService, {
      getSigningCertificate: (request, context) => {
        this.enter("GetSigningCertificate", request.tenant, context);
        const imported = this.importedCertificates.get(request.tenant);
        if (imported) {
          return { keyId: imported.keyId, publicJwkJson: "{}", x5c: imported.x5c, trustAnchor: imported.trustAnchor };
        }
        if (!this.signingCertificate) throw new ConnectError("no issuing CA", Code.FailedPrecondition);
        return {
          keyId: `key-${request.tenant}`,
          publicJwkJson: "{}",
          x5c: [this.signingCertificate.leafDer],
          trustAnchor: this.signingCertificate.rootDer,
        };
      },
      importSigningCertificate: (request, context) => {
        this.enter("ImportSigningCertificate", request.tenant, context);
        let checked: ReturnType<typeof checkImportedChain>;
        try {
          const names = issuerNamesOf(TEST_CREDENTIAL_ISSUER_URL, request.tenant);
          checked = checkImportedChain(request.chain, request.privateKeyPem, this.now(), names);
        } catch (error) {
          throw toConnectError(error);
        }
        const current = this.importedCertificates.get(request.tenant);
        const same = current?.chain.join() === checked.chain.join();
        const held = same && current ? current : { ...checked, keyId: `imported-${randomUUID()}` };
        this.importedCertificates.set(request.tenant, held);
        return {
          keyId: held.keyId,
          x5c: held.x5c,
          fingerprint: held.fingerprint,
          notAfter: timestampFromDate(held.notAfter),
          changed: !same,
        };
      },
      clearSigningCertificate: (request, context) => {
        this.enter("ClearSigningCertificate", request.tenant, context);
        return { cleared: this.importedCertificates.delete(request.tenant) };
      },
    });
  };

  /** Platform clients as the operator builds them (caller "operator"), over an in-memory transport. */
  platform(options: { caller?: ServiceIdentity } = {}): Platform {
    const signer = testCredentialSigner(options.caller ?? OPERATOR_CALLER);
    const transport = serviceCredentialTransport(this.routes, {
      audience: "trust-registry",
      signer,
    });
    return {
      tenants: createClient(tenantV1.TenantService, transport),
      keys: createClient(keysV1.KeyCustodyService, transport),
      issuers: this.issuer.client(signer),
      verifierPolicies: this.verifier.client(signer),
    };
  }
}
