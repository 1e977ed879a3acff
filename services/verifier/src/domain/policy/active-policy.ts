import { type Certificate, parseBase64DerCertificate } from "@attesto/protocol";
import type { TrustAnchorSource } from "../ports.js";
import type { VerificationMode } from "../verification-session.js";
import type { VerifierCertificateSource, VerifierPolicy } from "./verifier-policy.js";

/** A stored policy with its X.509 roots parsed, as the verification checks use it. */
export interface ActivePolicy {
  policy: VerifierPolicy;
  roots: Certificate[];
}

export const activePolicies = (policies: readonly VerifierPolicy[]): ActivePolicy[] =>
  policies.map((policy) => ({
    policy,
    roots: policy.trustedX509RootsDer.map((der) => parseBase64DerCertificate(Buffer.from(der).toString("base64"))),
  }));

/** The platform trust anchors plus the tenant's policy roots (a policy root anchors the tenant's x5c chains). */
export function withPolicyAnchors(source: TrustAnchorSource, policies: readonly ActivePolicy[]): TrustAnchorSource {
  const extra = policies.flatMap((active) => active.roots);
  if (extra.length === 0) return source;
  return {
    async anchors() {
      const anchors = await source.anchors();
      return { ...anchors, certificates: [...anchors.certificates, ...extra] };
    },
  };
}

/** The policies' default verification mode: `run_all` when any asks for it, else `fail_fast` when any sets it. */
export function policyVerificationMode(policies: readonly VerifierPolicy[]): VerificationMode | undefined {
  const modes = new Set(policies.map((policy) => policy.verificationMode));
  if (modes.has("run_all")) return "run_all";
  return modes.has("fail_fast") ? "fail_fast" : undefined;
}

/** The verifier certificate the tenant's policies name: `imported` when any asks for it, else the platform's. */
export const verifierCertificateOf = (policies: readonly VerifierPolicy[]): VerifierCertificateSource =>
  policies.some((policy) => policy.verifierCertificate === "imported") ? "imported" : "platform";
