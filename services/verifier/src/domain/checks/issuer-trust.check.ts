import { type Certificate, SdJwtVerificationError, verifyX5cChain } from "@attesto/protocol";
import { type IssuerStanding, UpstreamUnavailableError } from "../upstream.js";
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

/**
 * (c) Registered on this platform: the issuer (its `iss`, or the DID that signed) is an ACTIVE issuer
 * tenant, asked of the trust registry for this presentation (its tenant lifecycle; never a cached
 * list). A chain to the platform root CA alone is not enough: the tenant its leaf names must still
 * be active. An issuer that is no tenant counts only with an x5c chain to TRUSTED_X509_ROOTS_PEM,
 * anchors this verifier's operator configured.
 */
async function trustedByPlatform(
  presentation: PresentationUnderVerification,
  context: VerificationContext,
  standing: IssuerStanding,
): Promise<CheckOutcome | undefined> {
  if (standing === "active") return success("registered", "the issuer is an active issuer tenant of this platform");
  const issuer = presentation.issuer!;
  if (issuer.chain) {
    const { configured = [] } = await context.ports.trustAnchors.anchors();
    if (await chainLeadsTo(presentation, configured, context.now)) {
      return success(
        "registered",
        "the issuer's x5c chain leads to a configured trust anchor (TRUSTED_X509_ROOTS_PEM)",
      );
    }
  }
  return undefined;
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
  // The tenant lifecycle first: a deactivated issuer is never trusted, whatever a policy or the
  // query says (trust registry README, "Tenant lifecycle"). Fail closed when it cannot be asked.
  let standing: IssuerStanding;
  try {
    standing = await context.ports.registeredIssuers.standingOf({ iss: issuer.iss, did: issuer.did });
  } catch (error) {
    if (error instanceof UpstreamUnavailableError) {
      return failed("registry_unavailable", "the trust registry could not be asked whether the issuer is registered");
    }
    throw error;
  }
  if (standing === "deactivated") {
    return failed(
      "issuer_deactivated",
      "the issuer's tenant was deactivated on this platform: its credentials are no longer trusted",
    );
  }
  const policy = await trustedByPolicy(presentation, context);
  if (policy !== undefined) return success("policy", `the issuer is trusted by verifier policy '${policy}'`);
  if (trustedByQuery(presentation, issuer)) {
    return success("trusted_authorities", "the issuer is one of the query's trusted authorities");
  }
  const platform = await trustedByPlatform(presentation, context, standing);
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
