import { X509Certificate } from "node:crypto";
import { badRequest } from "@attesto/runtime/errors";
import { zTenantIdNamed } from "@attesto/runtime/tenant-id";
import { z } from "zod";
import type { VerifierDependencies } from "../ports.js";
import { MAX_SESSION_TTL_SECONDS, MIN_SESSION_TTL_SECONDS, VERIFICATION_MODES } from "../verification-session.js";
import type { VerifierPolicy } from "./verifier-policy.js";

/** A policy as the caller declares it (VerifierPolicyService.ApplyPolicy), before validation. */
export type VerifierPolicyInput = Omit<VerifierPolicy, "updatedAt">;

const isCaCertificate = (der: Uint8Array) => {
  try {
    return new X509Certificate(der).ca;
  } catch {
    return false;
  }
};

/** Field rules; every message names the field, because the wire error is the message alone. */
export const zPolicyTenant = zTenantIdNamed("tenant");

export const zPolicyName = z
  .string()
  .min(1, "name is required")
  .max(253, "name must be at most 253 characters")
  .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/, "name may contain only lowercase letters, digits, '-' and '.'");

const zVerifierPolicyInput = z.object({
  tenant: zPolicyTenant,
  name: zPolicyName,
  trustedIssuerDids: z
    .array(z.string().regex(/^did:[a-z0-9]+:\S+$/, "trusted_issuer_dids must hold DIDs (did:<method>:<id>)"))
    .max(200, "trusted_issuer_dids must hold at most 200 DIDs"),
  trustedX509RootsDer: z
    .array(z.instanceof(Uint8Array).refine(isCaCertificate, "trusted_x509_roots_der must hold DER CA certificates"))
    .max(50, "trusted_x509_roots_der must hold at most 50 certificates"),
  acceptedVcts: z
    .array(z.string().min(1, "accepted_vcts must not hold empty values").max(2048, "accepted_vcts values are too long"))
    .max(100, "accepted_vcts must hold at most 100 values"),
  requiredClaims: z
    .array(
      z
        .array(z.string().min(1, "required_claims segments must not be empty").max(256))
        .min(1, "required_claims paths must not be empty")
        .max(16, "required_claims paths must have at most 16 segments"),
    )
    .max(100, "required_claims must hold at most 100 paths"),
  acceptAnyIssuer: z.boolean(),
  acceptUnknownStatus: z.boolean(),
  verifierCertificate: z.enum(["platform", "imported"]).optional(),
  verificationMode: z.enum(VERIFICATION_MODES).optional(),
  sessionTtlSeconds: z
    .number()
    .int()
    .min(
      MIN_SESSION_TTL_SECONDS,
      `session_ttl_seconds must be 0 or ${MIN_SESSION_TTL_SECONDS}-${MAX_SESSION_TTL_SECONDS}`,
    )
    .max(
      MAX_SESSION_TTL_SECONDS,
      `session_ttl_seconds must be 0 or ${MIN_SESSION_TTL_SECONDS}-${MAX_SESSION_TTL_SECONDS}`,
    )
    .optional(),
  digest: z.string().min(1, "digest is required").max(128, "digest must be at most 128 characters"),
});

/**
 * VerifierPolicyService.ApplyPolicy: validates the policy (400 naming the field) and stores it;
 * the same digest as the stored policy changes nothing.
 */
export async function applyVerifierPolicy(
  deps: Pick<VerifierDependencies, "policies" | "now">,
  input: VerifierPolicyInput,
): Promise<{ policy: VerifierPolicy; changed: boolean }> {
  const parsed = zVerifierPolicyInput.safeParse(input);
  if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? "invalid policy");
  const unique = <T>(values: T[], key: (value: T) => string) => [
    ...new Map(values.map((value) => [key(value), value])).values(),
  ];
  const policy = parsed.data;
  return deps.policies.apply({
    ...policy,
    trustedIssuerDids: unique(policy.trustedIssuerDids, (did) => did),
    trustedX509RootsDer: unique(policy.trustedX509RootsDer, (der) => Buffer.from(der).toString("base64")),
    acceptedVcts: unique(policy.acceptedVcts, (vct) => vct),
    requiredClaims: unique(policy.requiredClaims, (path) => JSON.stringify(path)),
    acceptAnyIssuer: policy.acceptAnyIssuer,
    acceptUnknownStatus: policy.acceptUnknownStatus,
    verifierCertificate: policy.verifierCertificate,
    verificationMode: policy.verificationMode,
    sessionTtlSeconds: policy.sessionTtlSeconds,
    updatedAt: deps.now(),
  });
}
