import type { VerificationMode } from "../verification-session.js";

/** Which of a tenant's verifier certificates (a VerifierPolicy names it; the platform's by default). */
export type VerifierCertificateSource = "platform" | "imported";

/**
 * What a tenant's verifier accepts (declared by the operator through VerifierPolicyService). Every
 * policy of a tenant applies to every presentation to that tenant's sessions.
 */
export interface VerifierPolicy {
  tenant: string;
  /** Unique per tenant (the VerifierPolicy resource's name). */
  name: string;
  /** Issuer DIDs trusted on the DID path. */
  trustedIssuerDids: string[];
  /** CA certificates (DER) trusted on the X.509 path; also trust anchors for the tenant's sessions. */
  trustedX509RootsDer: Uint8Array[];
  /** Accepted `vct` values; empty accepts any. */
  acceptedVcts: string[];
  /** Claim paths (object member names, outermost first) every credential must disclose. */
  requiredClaims: string[][];
  /**
   * UNSAFE: trust any issuer whose key is bound to its `iss` (check `issuer_trust`), not only
   * listed, requested or platform-registered ones.
   */
  acceptAnyIssuer: boolean;
  /**
   * Accept a credential whose status cannot be stated (check `revocation`, `status_unknown`: its
   * issuer's status list unreachable or invalid) instead of failing it.
   */
  acceptUnknownStatus: boolean;
  /**
   * Which verifier certificate signs the tenant's x509 sessions (`client_id_prefix`): the one the
   * platform CA issues for the verifier's host (default) or the chain the operator imported.
   */
  verifierCertificate?: VerifierCertificateSource;
  /** Default verification mode of submissions without one. */
  verificationMode: VerificationMode | undefined;
  /** Lifetime of new sessions: default and maximum of `expires_in`. */
  sessionTtlSeconds: number | undefined;
  /** The caller's version of the policy; the same digest again changes nothing. */
  digest: string;
  updatedAt: Date;
}

/** A claim path as `a.b.c`, for messages. */
export const claimPathLabel = (path: readonly string[]) => path.join(".");
