import { keysV1, ledgerV1, notaryV1, schemaV1, tenantV1 } from "@attesto/proto";
import type { DescService } from "@bufbuild/protobuf";
import {
  type Client,
  Code,
  ConnectError,
  type ConnectRouter,
  createClient,
  createRouterTransport,
} from "@connectrpc/connect";
import {
  BADGE_VCT,
  badgeMetadata,
  badgeSchema,
  DIPLOMA_VCT,
  diplomaMetadata,
  diplomaSchema,
} from "./credential-type.fixture.js";
import { createDidDocumentFor } from "./did-document.js";
import { TokenStatusDouble } from "./token-status-double.js";
import { createTestChain, signEs256, type TestChain } from "./x509-chain.js";

/**
 * In-memory doubles of the issuer's external edges (trust registry, schema registry, ledger),
 * served over Connect router transports so the issuer's real clients and error mapping run.
 */

export const API_KEYS = {
  acme: "attesto_production_acme0000000000000000000000000000000000000000000",
  verifierOnly: "attesto_production_verifier00000000000000000000000000000000000000",
  pending: "attesto_production_pending0000000000000000000000000000000000000000",
};

interface TenantEntry {
  tenant: tenantV1.Tenant;
  configurations: Array<{ id: string; type: string; version: string; vct: string }>;
}

const tenantOf = (tenant: string, name: string, roles: tenantV1.Role[], status = "APPROVED") =>
  ({ accountUuid: "11111111-1111-4111-8111-111111111111", tenant, name, roles, status }) as tenantV1.Tenant;

export class TrustRegistryDouble {
  readonly tenants = new Map<string, TenantEntry>([
    [
      "acme",
      {
        tenant: tenantOf("acme", 'Acme <University> & "Co"', [tenantV1.Role.ISSUER, tenantV1.Role.VERIFIER]),
        configurations: [
          { id: "university-diploma", type: "university-diploma", version: "v1", vct: DIPLOMA_VCT },
          { id: "employee-badge", type: "employee-badge", version: "v1", vct: BADGE_VCT },
        ],
      },
    ],
    ["verifier-co", { tenant: tenantOf("verifier-co", "Verifier Co", [tenantV1.Role.VERIFIER]), configurations: [] }],
  ]);
  readonly chains = new Map<string, TestChain>();
  /** Sign calls seen by key custody (the issuer never sees the private key). */
  signCalls = 0;
  getSigningCertificateCalls = 0;
  /** TenantService calls (API keys, tenants), for the tests that count what a step asks. */
  tenantCalls = 0;

  async chainOf(tenant: string): Promise<TestChain> {
    let chain = this.chains.get(tenant);
    if (!chain) {
      chain = await createTestChain(tenant);
      this.chains.set(tenant, chain);
    }
    return chain;
  }

  register(router: ConnectRouter): void {
    router.service(tenantV1.TenantService, {
      authenticateApiKey: async ({ apiKey }) => {
        this.tenantCalls++;
        if (apiKey === API_KEYS.acme)
          return { outcome: tenantV1.ApiKeyOutcome.VALID, tenant: this.tenants.get("acme")!.tenant };
        if (apiKey === API_KEYS.verifierOnly) {
          return { outcome: tenantV1.ApiKeyOutcome.VALID, tenant: this.tenants.get("verifier-co")!.tenant };
        }
        if (apiKey === API_KEYS.pending) {
          return {
            outcome: tenantV1.ApiKeyOutcome.NOT_APPROVED,
            tenant: tenantOf("pending", "Pending", [tenantV1.Role.ISSUER], "PENDING"),
          };
        }
        return { outcome: tenantV1.ApiKeyOutcome.INVALID };
      },
      getTenant: async ({ tenant }) => {
        this.tenantCalls++;
        const entry = this.tenants.get(tenant);
        if (!entry) throw new ConnectError(`tenant '${tenant}' not found`, Code.NotFound);
        return { tenant: entry.tenant, credentialConfigurations: entry.configurations };
      },
    });
    router.service(keysV1.KeyCustodyService, {
      getSigningCertificate: async ({ tenant }) => {
        this.getSigningCertificateCalls++;
        const chain = await this.chainOf(tenant);
        return { keyId: `x509-${tenant}`, publicJwkJson: "{}", x5c: chain.x5c, trustAnchor: chain.trustAnchor };
      },
      sign: async ({ tenant, keyId, signingInput }) => {
        if (keyId !== `x509-${tenant}`) throw new ConnectError("key not found", Code.NotFound);
        this.signCalls++;
        const chain = await this.chainOf(tenant);
        return { signature: await signEs256(chain.leafPrivateKey, signingInput), alg: keysV1.KeyAlgorithm.ES256 };
      },
    });
  }
}

export class SchemaRegistryDouble {
  readonly types = new Map<
    string,
    { name: string; schema: object; metadata: object; format?: "mso_mdoc"; doctype?: string }
  >([
    [DIPLOMA_VCT, { name: "University Diploma", schema: diplomaSchema, metadata: diplomaMetadata }],
    [BADGE_VCT, { name: "Employee Badge", schema: badgeSchema, metadata: badgeMetadata }],
  ]);

  register(router: ConnectRouter): void {
    router.service(schemaV1.SchemaService, {
      getCredentialType: async ({ selector }) => {
        const type = selector.case === "vct" ? this.types.get(selector.value) : undefined;
        if (!type || selector.case !== "vct") throw new ConnectError("credential type not found", Code.NotFound);
        return {
          credentialType: {
            vct: selector.value,
            name: type.name,
            schema: type.schema as never,
            metadata: type.metadata as never,
            format: type.format ?? "dc+sd-jwt",
            doctype: type.doctype ?? "",
          },
        };
      },
    });
  }
}

export class LedgerDouble {
  readonly documents = new Map<string, { document: object; deactivated: boolean }>();
  /** When false, every call fails as an unreachable ledger does. */
  available = true;

  /** Anchors a did:ledger DID for an Ed25519 public key. */
  addDid(did: string, publicJwk: object, deactivated = false): void {
    this.documents.set(did, { document: createDidDocumentFor(did, publicJwk), deactivated });
  }

  private checkAvailable() {
    if (!this.available) throw new ConnectError("ledger unreachable", Code.Unavailable);
  }

  register(router: ConnectRouter): void {
    router.service(ledgerV1.LedgerService, {
      resolveDid: async ({ did }) => {
        this.checkAvailable();
        if (!did.startsWith("did:ledger:"))
          throw new ConnectError("did must be a did:ledger DID", Code.InvalidArgument);
        const entry = this.documents.get(did);
        if (!entry) throw new ConnectError("DID not found", Code.NotFound);
        return { didDocumentJson: JSON.stringify(entry.document), deactivated: entry.deactivated };
      },
    });
  }
}

/** The scheduler's NotaryService: enqueues reject while the ledger double is down. */
export class NotaryDouble {
  readonly enqueued: Array<{
    tenant: string;
    credentialId: string;
    digest: string;
    offerId: string;
    objectId: string;
  }> = [];

  /** Credential webhook events, once per event key (as the scheduler keeps them). */
  readonly credentialEvents = new Map<
    string,
    { tenant: string; type: string; credentialId: string; offerId: string; data: Record<string, unknown> }
  >();
  /** False: PublishCredentialEvent answers UNAVAILABLE (scheduler down). */
  available = true;

  constructor(private readonly ledger: LedgerDouble) {}

  register(router: ConnectRouter): void {
    router.service(notaryV1.NotaryService, {
      publishCredentialEvent: async ({ tenant, type, credentialId, offerId, eventKey, dataJson }) => {
        if (!this.available) throw new ConnectError("Scheduler is unavailable", Code.Unavailable);
        const key = `${tenant}:${eventKey}`;
        if (this.credentialEvents.has(key)) return { created: false };
        this.credentialEvents.set(key, { tenant, type, credentialId, offerId, data: JSON.parse(dataJson) });
        return { created: true };
      },
      enqueueNotarization: async ({ tenant, credentialId, digest, offerId, requireLedgerReachable }) => {
        if (requireLedgerReachable && !this.ledger.available) {
          throw new ConnectError("Ledger is unavailable", Code.Unavailable);
        }
        const objectId = `00000000-0000-4000-8000-${String(this.enqueued.length + 1).padStart(12, "0")}`;
        this.enqueued.push({ tenant, credentialId, digest, offerId, objectId });
        return { objectId, chain: "ledger" };
      },
      // As the scheduler: only for the enqueued digest; pending (anchoring is the scheduler's own test).
      getAnchorProof: async ({ objectId, digest }) => {
        if (!this.available) throw new ConnectError("Scheduler is unavailable", Code.Unavailable);
        const found = this.enqueued.find((entry) => entry.objectId === objectId && entry.digest === digest);
        if (!found) throw new ConnectError("Notarization not found", Code.NotFound);
        return { objectId, chain: "ledger", state: notaryV1.NotarizationState.PENDING };
      },
    });
  }
}

export interface Doubles {
  trustRegistry: TrustRegistryDouble;
  schemaRegistry: SchemaRegistryDouble;
  ledger: LedgerDouble;
  notary: NotaryDouble;
  /** The authorization server's TokenStatusService. */
  tokenStatus: TokenStatusDouble;
  /** A client of a double by the audience the issuer calls it with. */
  clientFor<S extends DescService>(service: S, audience: string): Client<S>;
}

export function createDoubles(): Doubles {
  const trustRegistry = new TrustRegistryDouble();
  const schemaRegistry = new SchemaRegistryDouble();
  const ledger = new LedgerDouble();
  const notary = new NotaryDouble(ledger);
  const tokenStatus = new TokenStatusDouble();
  const transports = {
    "auth-server": createRouterTransport((router) => tokenStatus.register(router)),
    "trust-registry": createRouterTransport((router) => trustRegistry.register(router)),
    "schema-registry": createRouterTransport((router) => schemaRegistry.register(router)),
    ledger: createRouterTransport((router) => ledger.register(router)),
    scheduler: createRouterTransport((router) => notary.register(router)),
  } as Record<string, ReturnType<typeof createRouterTransport>>;
  return {
    trustRegistry,
    schemaRegistry,
    ledger,
    notary,
    tokenStatus,
    clientFor(service, audience) {
      const transport = transports[audience];
      if (!transport) throw new Error(`no double for ${audience}`);
      return createClient(service, transport);
    },
  };
}
