import { verifierPolicyV1 } from "@attesto/proto";
import { badRequest, notFound } from "@attesto/runtime/errors";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { applyVerifierPolicy, zPolicyName, zPolicyTenant } from "../domain/policy/apply-verifier-policy.js";
import type { VerifierCertificateSource, VerifierPolicy } from "../domain/policy/verifier-policy.js";
import type { VerifierDependencies } from "../domain/ports.js";
import type { VerificationMode } from "../domain/verification-session.js";

type Service = typeof verifierPolicyV1.VerifierPolicyService;
type PolicyMessage = MessageInitShape<typeof verifierPolicyV1.VerifierPolicySchema>;

const MODE_FROM_WIRE: Record<verifierPolicyV1.VerificationMode, VerificationMode | undefined> = {
  [verifierPolicyV1.VerificationMode.UNSPECIFIED]: undefined,
  [verifierPolicyV1.VerificationMode.FAIL_FAST]: "fail_fast",
  [verifierPolicyV1.VerificationMode.RUN_ALL]: "run_all",
};
const MODE_TO_WIRE = {
  fail_fast: verifierPolicyV1.VerificationMode.FAIL_FAST,
  run_all: verifierPolicyV1.VerificationMode.RUN_ALL,
} as const;

const CERTIFICATE_FROM_WIRE: Record<number, VerifierCertificateSource | undefined> = {
  [verifierPolicyV1.VerifierCertificate.UNSPECIFIED]: undefined,
  [verifierPolicyV1.VerifierCertificate.PLATFORM]: "platform",
  [verifierPolicyV1.VerifierCertificate.IMPORTED]: "imported",
};
const CERTIFICATE_TO_WIRE = {
  platform: verifierPolicyV1.VerifierCertificate.PLATFORM,
  imported: verifierPolicyV1.VerifierCertificate.IMPORTED,
} as const;

function toMessage(policy: VerifierPolicy): PolicyMessage {
  return {
    tenant: policy.tenant,
    name: policy.name,
    trustedIssuerDids: policy.trustedIssuerDids,
    trustedX509RootsDer: policy.trustedX509RootsDer,
    acceptedVcts: policy.acceptedVcts,
    requiredClaims: policy.requiredClaims.map((segments) => ({ segments })),
    verificationMode: policy.verificationMode
      ? MODE_TO_WIRE[policy.verificationMode]
      : verifierPolicyV1.VerificationMode.UNSPECIFIED,
    sessionTtlSeconds: policy.sessionTtlSeconds ?? 0,
    acceptAnyIssuer: policy.acceptAnyIssuer,
    acceptUnknownStatus: policy.acceptUnknownStatus,
    verifierCertificate: policy.verifierCertificate
      ? CERTIFICATE_TO_WIRE[policy.verifierCertificate]
      : verifierPolicyV1.VerifierCertificate.UNSPECIFIED,
    digest: policy.digest,
    updatedAt: timestampFromDate(policy.updatedAt),
  };
}

/** Tenant and name of Delete/GetPolicy, with ApplyPolicy's rules (400 naming the field). */
function policyKey(request: { tenant: string; name: string }): { tenant: string; name: string } {
  const tenant = zPolicyTenant.safeParse(request.tenant);
  if (!tenant.success) throw badRequest(tenant.error.issues[0]?.message ?? "invalid tenant");
  const name = zPolicyName.safeParse(request.name);
  if (!name.success) throw badRequest(name.error.issues[0]?.message ?? "invalid name");
  return { tenant: tenant.data, name: name.data };
}

/** attesto.verifier.v1.VerifierPolicyService: the operator declares what a tenant's verifier accepts. */
export class VerifierPolicyServiceRpc implements ServiceImpl<Service> {
  constructor(private readonly deps: VerifierDependencies) {}

  async applyPolicy(request: verifierPolicyV1.ApplyPolicyRequest) {
    const policy = request.policy;
    if (!policy) throw badRequest("policy is required");
    const mode = MODE_FROM_WIRE[policy.verificationMode];
    if (!(policy.verificationMode in MODE_FROM_WIRE)) throw badRequest("verification_mode is unknown");
    if (!(policy.verifierCertificate in CERTIFICATE_FROM_WIRE)) throw badRequest("verifier_certificate is unknown");
    const applied = await applyVerifierPolicy(this.deps, {
      tenant: policy.tenant,
      name: policy.name,
      trustedIssuerDids: policy.trustedIssuerDids,
      trustedX509RootsDer: policy.trustedX509RootsDer,
      acceptedVcts: policy.acceptedVcts,
      requiredClaims: policy.requiredClaims.map((path) => path.segments),
      verificationMode: mode,
      sessionTtlSeconds: policy.sessionTtlSeconds === 0 ? undefined : policy.sessionTtlSeconds,
      acceptAnyIssuer: policy.acceptAnyIssuer,
      acceptUnknownStatus: policy.acceptUnknownStatus,
      verifierCertificate: CERTIFICATE_FROM_WIRE[policy.verifierCertificate],
      digest: policy.digest,
    });
    return { policy: toMessage(applied.policy), changed: applied.changed };
  }

  async deletePolicy(request: verifierPolicyV1.DeletePolicyRequest) {
    const { tenant, name } = policyKey(request);
    return { deleted: await this.deps.policies.delete(tenant, name) };
  }

  async getPolicy(request: verifierPolicyV1.GetPolicyRequest) {
    const { tenant, name } = policyKey(request);
    const policy = await this.deps.policies.find(tenant, name);
    if (!policy) throw notFound("verifier policy not found");
    return { policy: toMessage(policy) };
  }
}
