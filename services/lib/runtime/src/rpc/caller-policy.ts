import { Code, ConnectError, createContextKey, type Interceptor } from "@connectrpc/connect";
import type { ServiceIdentity } from "./service-identity.js";

/** The verified identity of the caller, available to RPC handlers via `context.values`. */
export const callerKey = createContextKey<string>("", { description: "calling service" });

/**
 * Who may call each internal RPC method: the one table of least privilege between services, by
 * fully qualified service name and method name. A method missing here is refused to everyone; an
 * identity missing from a method's list gets PERMISSION_DENIED before the handler runs. The
 * table is written out in docs/internal-rpc-permissions.md (keep the two in step); a test calls
 * every method of every generated service as every identity against it.
 */
export const CALLER_POLICY: Readonly<Record<string, Readonly<Record<string, readonly ServiceIdentity[]>>>> = {
  "attesto.auth.v1.TokenStatusService": {
    GetTokenStatus: ["credential-issuer"],
  },
  "attesto.issuance.v1.GrantService": {
    RedeemPreAuthorizedCode: ["auth-server"],
    ResolveIssuerState: ["auth-server"],
    RedeemIssuerState: ["auth-server"],
    CheckIssuerActive: ["auth-server"],
  },
  "attesto.issuance.v1.IssuerService": {
    ApplyIssuerConfiguration: ["operator"],
    DeleteIssuerConfiguration: ["operator"],
    GetIssuerConfiguration: ["operator"],
  },
  "attesto.keys.v1.KeyCustodyService": {
    // Tenants' keys are generated and imported inside the trust registry, not over this API.
    GenerateKey: [],
    ImportKey: [],
    // The verifier signs request objects with its tenant's verifier key (x509 client ids).
    Sign: ["credential-issuer", "verifier"],
    DescribeKey: ["operator"],
    GetSigningCertificate: ["credential-issuer", "operator"],
    GetTrustAnchors: ["verifier", "holder"],
    ImportSigningCertificate: ["operator"],
    ClearSigningCertificate: ["operator"],
    GetVerifierCertificate: ["verifier", "operator"],
    ImportVerifierCertificate: ["operator"],
    ClearVerifierCertificate: ["operator"],
    RewrapKeys: ["operator"],
  },
  "attesto.ledger.v1.LedgerService": {
    CreateDid: ["holder", "trust-registry"],
    ResolveDid: ["credential-issuer", "verifier", "holder", "trust-registry"],
    DeactivateDid: ["trust-registry"],
    Notarize: ["scheduler"],
    GetRecord: ["scheduler"],
    GetCheckpoint: ["holder", "scheduler"],
  },
  "attesto.notary.v1.NotaryService": {
    EnqueueNotarization: ["credential-issuer"],
    GetNotarization: ["operator"],
    GetReference: ["operator"],
    // Only to a caller that names the credential's digest (the issuer's record, the holder's credential).
    GetAnchorProof: ["credential-issuer", "holder"],
    ListNotarizations: ["operator"],
    RetryDeadJobs: ["operator"],
    ListWebhookDeliveries: ["operator"],
    // Only the verifier knows a session's outcome: no other service may speak for it.
    PublishVerificationEvent: ["verifier"],
    // Only the credential issuer knows a credential's status changes and its wallets' notifications.
    PublishCredentialEvent: ["credential-issuer"],
  },
  "attesto.schema.v1.SchemaService": {
    GetCredentialType: ["credential-issuer"],
    ListCredentialTypes: ["trust-registry", "operator"],
    PutCredentialType: ["operator"],
  },
  "attesto.tenant.v1.TenantService": {
    AuthenticateApiKey: ["credential-issuer", "verifier"],
    GetTenant: ["credential-issuer", "operator"],
    ApplyTenant: ["operator"],
    ApproveTenant: ["operator"],
    ReplaceApiKey: ["operator"],
    SetWebhooks: ["operator"],
    // The signing secret is answered to the scheduler only (it signs the deliveries); the operator sees the endpoints.
    GetWebhooks: ["scheduler", "operator"],
    RevokeApiKeys: ["operator"],
    DeleteTenant: ["operator"],
    // The issuers the platform registered, for the verifier's issuer_trust check.
    ListRegisteredIssuers: ["verifier"],
    // Whether a credential's issuer is an active tenant, asked for every presentation (issuer_trust).
    GetIssuerStanding: ["verifier"],
    // After `attesto types add`: every tenant gets a configuration for the new type.
    ProvisionCredentialTypes: ["operator"],
  },
  "attesto.verifier.v1.VerifierPolicyService": {
    ApplyPolicy: ["operator"],
    DeletePolicy: ["operator"],
    GetPolicy: ["operator"],
  },
};

/** The identities allowed to call `<service>/<method>` (none for a method the table does not name). */
export function allowedCallers(service: string, method: string): readonly ServiceIdentity[] {
  return CALLER_POLICY[service]?.[method] ?? [];
}

/**
 * Enforces CALLER_POLICY on the internal port; runs after the credential check, which has put
 * the verified caller in `callerKey`.
 */
export function callerPolicyInterceptor(): Interceptor {
  return (next) => async (req) => {
    const caller = req.contextValues.get(callerKey);
    const allowed: readonly string[] = allowedCallers(req.service.typeName, req.method.name);
    if (!allowed.includes(caller)) {
      throw new ConnectError(
        `${req.service.typeName}/${req.method.name} may not be called by '${caller}'`,
        Code.PermissionDenied,
      );
    }
    return next(req);
  };
}
