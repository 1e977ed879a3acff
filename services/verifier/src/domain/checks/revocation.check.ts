import { createHash } from "node:crypto";
import { UpstreamUnavailableError } from "../upstream.js";
import { failed, notEvaluable, perPresentationCheck, skipped, success } from "./check.js";

/**
 * `revocation`: the issuer's revocation state of the credential, asked of the credential issuer by
 * the SHA-256 of the issuer-signed JWT. Revoked fails; a credential the platform does not know
 * (another issuer) is skipped; an unreachable issuer fails (closed).
 */
export const revocationCheck = perPresentationCheck("revocation", async ({ parsed }, { ports }) => {
  if (!parsed) return notEvaluable();
  const digest = createHash("sha256").update(parsed.issuerJwt.compact).digest("hex");
  let status: Awaited<ReturnType<typeof ports.credentialStatus.statusOf>>;
  try {
    status = await ports.credentialStatus.statusOf(digest);
  } catch (error) {
    if (error instanceof UpstreamUnavailableError) {
      return failed("status_unavailable", "the credential issuer could not be reached for the revocation state");
    }
    throw error;
  }
  if (status === "revoked") return failed("revoked", "the credential has been revoked by its issuer");
  if (status === "unknown")
    return skipped("status_unknown", "the platform holds no revocation state for this credential");
  return success("active", "the credential is not revoked");
});
