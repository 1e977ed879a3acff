import { createPrivateKey, sign as cryptoSign } from "node:crypto";
import { keysV1, ledgerV1, notaryV1, tenantV1 } from "@attesto/proto";
import type { DescService } from "@bufbuild/protobuf";
import {
  type Client,
  Code,
  ConnectError,
  type ConnectRouter,
  createClient,
  createRouterTransport,
} from "@connectrpc/connect";

/** The edges a test can take down: the trust registry's TenantService and KeyCustodyService, the ledger, the scheduler. */
type Edge = "trust-registry" | "key-custody" | "ledger" | "scheduler";

/** Tenants the trust-registry double knows, by API key. */
export const API_KEYS = {
  verifier: "key-verifier-acme",
  otherVerifier: "key-verifier-globex",
  issuerOnly: "key-issuer-only",
  pending: "key-pending",
} as const;

const tenant = (name: string, roles: tenantV1.Role[]) => ({
  accountUuid: "0b9f6c1e-2f4e-4d5a-9c1b-3f1e2d3c4b5a",
  tenant: name,
  name: `${name} org`,
  roles,
  status: "APPROVED",
});

/**
 * In-memory doubles of the verifier's external edges (trust registry, ledger, scheduler, issuers' web),
 * served through Connect router transports: the verifier's real clients talk to them.
 */
export class PlatformEdges {
  /** did:ledger DID -> DID document and deactivation flag. */
  readonly dids = new Map<string, { document: Record<string, unknown>; deactivated: boolean }>();
  /** Platform root CAs (standard base64 DER) that GetTrustAnchors returns. */
  trustAnchors: string[] = [];
  /** What ListRegisteredIssuers answers: the platform's issuer tenants and X.509 roots. */
  readonly registered = { issuerUrls: new Set<string>(), dids: new Set<string>(), x509Roots: [] as string[] };
  /** Issuer URLs or DIDs of tenants the operator deactivated (GetIssuerStanding DEACTIVATED). */
  readonly deactivatedIssuers = new Set<string>();
  /** Issuers' web documents (JWT VC Issuer Metadata, JWKS) by URL: the web, as the verifier fetches it. */
  readonly web = new Map<string, unknown>();
  /** Status List Tokens by URI, served as application/statuslist+jwt (a number: that HTTP status, no token). */
  readonly statusLists = new Map<string, string | number>();
  /** Edges that answer Unavailable, to test fail-closed behaviour. */
  readonly down = new Set<Edge>();
  readonly calls = {
    resolveDid: 0,
    getTrustAnchors: 0,
    statusList: 0,
    listRegisteredIssuers: 0,
    getIssuerStanding: 0,
    authenticateApiKey: 0,
    fetchJson: 0,
  };
  /**
   * Tenants' verifier certificates in key custody, by `<tenant>/<platform|imported>`: what
   * GetVerifierCertificate answers (none: FAILED_PRECONDITION) and whose keys Sign uses.
   */
  readonly verifierCertificates = new Map<
    string,
    { keyId: string; x5c: string[]; privateJwk: Record<string, string> }
  >();
  readonly verifierCertificateRequests: keysV1.GetVerifierCertificateRequest[] = [];
  /** What the verifier published to the scheduler (PublishVerificationEvent). */
  readonly verificationEvents: notaryV1.PublishVerificationEventRequest[] = [];

  /** Stands in for the outbound request guard: answers from `web`, anything else is a failed fetch. */
  readonly webClient = {
    fetchJson: async (url: string) => {
      this.calls.fetchJson++;
      if (!this.web.has(url)) throw new Error(`HTTP 404 for ${url}`);
      return structuredClone(this.web.get(url));
    },
    /** Status List Tokens from `statusLists`; anything else is a 404. */
    request: async (url: string, _request: { method: "GET" | "POST"; headers?: Record<string, string> }) => {
      this.calls.statusList++;
      const entry = this.statusLists.get(url) ?? 404;
      const ok = typeof entry === "string";
      return {
        status: ok ? 200 : entry,
        headers: new Headers(ok ? { "content-type": "application/statuslist+jwt" } : {}),
        text: ok ? entry : "",
        url,
      };
    },
  };

  private unavailable(edge: Edge) {
    if (this.down.has(edge)) throw new ConnectError(`${edge} is down`, Code.Unavailable);
  }

  routes = (router: ConnectRouter) => {
    router.service(tenantV1.TenantService, {
      authenticateApiKey: (req) => {
        this.calls.authenticateApiKey++;
        this.unavailable("trust-registry");
        switch (req.apiKey) {
          case API_KEYS.verifier:
            return { outcome: tenantV1.ApiKeyOutcome.VALID, tenant: tenant("acme", [tenantV1.Role.VERIFIER]) };
          case API_KEYS.otherVerifier:
            return {
              outcome: tenantV1.ApiKeyOutcome.VALID,
              tenant: tenant("globex", [tenantV1.Role.VERIFIER, tenantV1.Role.ISSUER]),
            };
          case API_KEYS.issuerOnly:
            return { outcome: tenantV1.ApiKeyOutcome.VALID, tenant: tenant("initech", [tenantV1.Role.ISSUER]) };
          case API_KEYS.pending:
            return { outcome: tenantV1.ApiKeyOutcome.NOT_APPROVED, tenant: tenant("slow", [tenantV1.Role.VERIFIER]) };
          default:
            return { outcome: tenantV1.ApiKeyOutcome.INVALID };
        }
      },
      getIssuerStanding: (req) => {
        this.calls.getIssuerStanding++;
        this.unavailable("trust-registry");
        const did = req.iss.startsWith("did:") ? req.iss.split("#")[0]! : req.did.split("#")[0]!;
        if (this.deactivatedIssuers.has(req.iss) || this.deactivatedIssuers.has(did)) {
          return { standing: tenantV1.IssuerStanding.DEACTIVATED, tenant: "gone" };
        }
        const active = this.registered.issuerUrls.has(req.iss) || (did !== "" && this.registered.dids.has(did));
        return active
          ? { standing: tenantV1.IssuerStanding.ACTIVE, tenant: "acme" }
          : { standing: tenantV1.IssuerStanding.UNKNOWN };
      },
      listRegisteredIssuers: () => {
        this.calls.listRegisteredIssuers++;
        this.unavailable("trust-registry");
        return {
          issuers: [
            ...[...this.registered.issuerUrls].map((issuerUrl) => ({ tenant: "acme", issuerUrl, dids: [] })),
            { tenant: "acme-dids", issuerUrl: "", dids: [...this.registered.dids] },
          ],
          x509Roots: this.registered.x509Roots,
        };
      },
    });
    router.service(keysV1.KeyCustodyService, {
      getTrustAnchors: () => {
        this.calls.getTrustAnchors++;
        this.unavailable("key-custody");
        return { certificates: this.trustAnchors };
      },
      getVerifierCertificate: (req) => {
        this.unavailable("key-custody");
        this.verifierCertificateRequests.push(req);
        const source = req.source === keysV1.VerifierCertificateSource.IMPORTED ? "imported" : "platform";
        const held = this.verifierCertificates.get(`${req.tenant}/${source}`);
        if (!held) throw new ConnectError("the tenant has no imported verifier certificate", Code.FailedPrecondition);
        return { keyId: held.keyId, x5c: held.x5c, source: req.source };
      },
      sign: (req) => {
        this.unavailable("key-custody");
        const held = [...this.verifierCertificates.entries()].find(
          ([key, value]) => key.startsWith(`${req.tenant}/`) && value.keyId === req.keyId,
        )?.[1];
        if (!held) throw new ConnectError("key not found", Code.NotFound);
        const key = createPrivateKey({ key: held.privateJwk, format: "jwk" });
        return {
          signature: cryptoSign("sha256", req.signingInput, { key, dsaEncoding: "ieee-p1363" }),
          alg: keysV1.KeyAlgorithm.ES256,
        };
      },
    });
    router.service(ledgerV1.LedgerService, {
      resolveDid: (req) => {
        this.calls.resolveDid++;
        this.unavailable("ledger");
        const entry = this.dids.get(req.did);
        if (!entry) throw new ConnectError("DID not found", Code.NotFound);
        return { didDocumentJson: JSON.stringify(entry.document), deactivated: entry.deactivated };
      },
    });
    router.service(notaryV1.NotaryService, {
      publishVerificationEvent: (req) => {
        this.unavailable("scheduler");
        this.verificationEvents.push(req);
        return { created: true };
      },
    });
  };

  private readonly transport = createRouterTransport(this.routes);

  /** Stands in for ServiceContext.rpcClient: every service is served by these doubles. */
  rpcClient = <S extends DescService>(service: S): Client<S> => createClient(service, this.transport);
}
