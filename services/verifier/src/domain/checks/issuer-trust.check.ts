import { type Certificate, SdJwtVerificationError, verifyX5cChain } from "@attesto/protocol";
import { type RegisteredIssuerSnapshot, UpstreamUnavailableError } from "../upstream.js";
import {
  type CheckOutcome,
  failed,
  type IssuerIdentity,
  notEvaluable,
  type PresentationUnderVerification,
  perPresentationCheck,
  skipped,
  success,
  type VerificationContext,
} from "./check.js";

const didOf = (value: string) => value.split("#")[0] ?? value;

async function chainLeadsTo(
  presentation: PresentationUnderVerification,
  roots: readonly Certificate[],
  now: Date,
): Promise<boolean> {
  if (roots.length === 0) return false;
  try {
    await verifyX5cChain(presentation.issuer?.x5c, [...roots], now);
    return true;
  } catch (error) {
    if (error instanceof SdJwtVerificationError) return false;
    throw error;
  }
}

/** (a) A verifier policy of the tenant lists the issuer DID, or one of its roots anchors the chain. */
async function trustedByPolicy(presentation: PresentationUnderVerification, context: VerificationContext) {
  const issuer = presentation.issuer!;
  for (const { policy, roots } of context.policies) {
    if (issuer.did && policy.trustedIssuerDids.some((value) => didOf(value) === issuer.did)) return policy.name;
    if (issuer.chain && (await chainLeadsTo(presentation, roots, context.now))) return policy.name;
  }
  return undefined;
}

/** (b) The credential query's trusted_authorities name it (`did`, or `aki` of the chain). */
function trustedByQuery({ query }: PresentationUnderVerification, issuer: IssuerIdentity): boolean {
  const akis = issuer.chain?.authorityKeyIds ?? [];
  return (query?.trusted_authorities ?? []).some(
    ({ type, values }) =>
      (type === "did" && issuer.did !== undefined && values.some((value) => didOf(value) === issuer.did)) ||
      (type === "aki" && values.some((value) => akis.includes(value))),
  );
}

const isRegistered = (snapshot: RegisteredIssuerSnapshot, issuer: IssuerIdentity) =>
  snapshot.issuerUrls.has(issuer.iss) ||
  snapshot.dids.has(didOf(issuer.iss)) ||
  (issuer.did !== undefined && snapshot.dids.has(issuer.did));

/**
 * (c) Registered on this platform: an active issuer tenant's issuer URL or DID; or an x5c chain,
 * which issuer_signature validated up to the platform's anchors (the platform root CA, the roots of
 * certificates tenants imported, TRUSTED_X509_ROOTS_PEM) or a policy root.
 */
async function trustedByPlatform(
  presentation: PresentationUnderVerification,
  context: VerificationContext,
): Promise<CheckOutcome | undefined> {
  const issuer = presentation.issuer!;
  if (issuer.chain) {
    const { certificates } = await context.ports.trustAnchors.anchors();
    let roots = certificates;
    try {
      roots = [...certificates, ...(await context.ports.registeredIssuers.snapshot()).x509Roots];
    } catch (error) {
      if (!(error instanceof UpstreamUnavailableError)) throw error;
    }
    if (await chainLeadsTo(presentation, roots, context.now)) {
      return success("registered", "the issuer's x5c chain leads to a trust anchor of this platform");
    }
  }
  let snapshot: RegisteredIssuerSnapshot;
  try {
    snapshot = await context.ports.registeredIssuers.snapshot((known) => isRegistered(known, issuer));
  } catch (error) {
    if (error instanceof UpstreamUnavailableError) {
      return failed("registry_unavailable", "the trust registry could not be asked whether the issuer is registered");
    }
    throw error;
  }
  return isRegistered(snapshot, issuer)
    ? success("registered", "the issuer is registered on this platform")
    : undefined;
}

/**
 * `issuer_trust` (deny by default): the verified issuer is trusted when (a) a verifier policy of the
 * tenant lists it, (b) the credential query's trusted_authorities name it, or (c) it is registered
 * on this platform, or any issuer whose key binding verified when a policy sets acceptAnyIssuer.
 */
export const issuerTrustCheck = perPresentationCheck("issuer_trust", async (presentation, context) => {
  if (!presentation.parsed && !presentation.mdoc) return notEvaluable();
  const issuer = presentation.issuer;
  if (!issuer?.signatureVerified) {
    return skipped("not_evaluable", "the issuer could not be verified (see issuer_signature)");
  }
  const policy = await trustedByPolicy(presentation, context);
  if (policy !== undefined) return success("policy", `the issuer is trusted by verifier policy '${policy}'`);
  if (trustedByQuery(presentation, issuer)) {
    return success("trusted_authorities", "the issuer is one of the query's trusted authorities");
  }
  const platform = await trustedByPlatform(presentation, context);
  if (platform?.status === "success") return platform;
  const acceptAny = context.policies.find(({ policy }) => policy.acceptAnyIssuer);
  if (acceptAny) {
    return success("any_issuer", `verifier policy '${acceptAny.policy.name}' accepts any issuer (acceptAnyIssuer)`);
  }
  if (platform) return platform;
  return failed(
    "untrusted_issuer",
    "the issuer is not registered on this platform, not named by the query's trusted_authorities and not trusted by a verifier policy",
  );
});
