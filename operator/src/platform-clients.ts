import { issuerConfigurationV1, keysV1, tenantV1, verifierPolicyV1 } from "@attesto/proto";
import {
  createRpcClient,
  createServiceCredentialSigner,
  type ServiceCredentialSigner,
  type ServiceIdentity,
} from "@attesto/runtime/rpc";
import type { Platform } from "./reconcile/reconciler.js";

export const OPERATOR_CALLER = "operator" satisfies ServiceIdentity;

export interface PlatformUrls {
  trustRegistryUrl: string;
  credentialIssuerUrl: string;
  verifierUrl: string;
}

/** The platform clients the reconcilers drive (trust registry, credential issuer, verifier), with one signer. */
export function createPlatformClients(
  options: PlatformUrls & { signer: ServiceCredentialSigner; timeoutMs: number },
): Platform {
  const target = {
    baseUrl: options.trustRegistryUrl,
    audience: "trust-registry",
    signer: options.signer,
    timeoutMs: options.timeoutMs,
  };
  return {
    tenants: createRpcClient(tenantV1.TenantService, target),
    keys: createRpcClient(keysV1.KeyCustodyService, target),
    issuers: createRpcClient(issuerConfigurationV1.IssuerService, {
      ...target,
      baseUrl: options.credentialIssuerUrl,
      audience: "credential-issuer",
    }),
    verifierPolicies: createRpcClient(verifierPolicyV1.VerifierPolicyService, {
      ...target,
      baseUrl: options.verifierUrl,
      audience: "verifier",
    }),
  };
}

/** The platform clients of the operator: the trust registry's and the verifier's internal APIs, as caller "operator". */
export function createPlatform(
  options: PlatformUrls & { /** The operator's SERVICE_IDENTITY_KEY. */ identityKey: string; timeoutMs: number },
): Platform {
  const signer = createServiceCredentialSigner({ privateKey: options.identityKey, caller: OPERATOR_CALLER });
  return createPlatformClients({ ...options, signer });
}
