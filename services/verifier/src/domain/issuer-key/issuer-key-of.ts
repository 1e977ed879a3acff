import type { VerificationContext } from "../checks/check.js";
import { failed } from "../checks/check.js";
import { UpstreamUnavailableError } from "../upstream.js";
import { issuerKeyOfDidIss } from "./did-issuer-key.js";
import { issuerKeyOfJwtVcIssuer } from "./jwt-vc-issuer-key.js";
import { isHttpIdentifier, type KeyLookup } from "./key-lookup.js";
import { issuerKeyOfX5c } from "./x5c-issuer-key.js";

/** Trust anchors of x5c chains: the platform's and configured ones, plus the roots of tenants' imported chains. */
export async function x5cAnchors(context: VerificationContext) {
  const { certificates, unavailable } = await context.ports.trustAnchors.anchors();
  try {
    const registered = await context.ports.registeredIssuers.snapshot();
    return { certificates: [...certificates, ...registered.x509Roots], unavailable };
  } catch (error) {
    if (error instanceof UpstreamUnavailableError) return { certificates, unavailable: true };
    throw error;
  }
}

/**
 * The key bound to `iss` that a JWT with this header must be signed with (SD-JWT VC draft, "Issuer
 * verification key"), by what `iss` is:
 * - a DID `iss`: an assertionMethod of that DID (did:key locally, did:ledger through the ledger,
 *   deactivated fails); a `kid` of another DID fails;
 * - an http(s) `iss` with `x5c`: the chain validated to a trust anchor, its leaf naming `iss` in a
 *   subjectAltName;
 * - an http(s) `iss` otherwise: the `kid` key of the issuer's JWT VC Issuer Metadata, whose
 *   `issuer` is `iss`;
 * - anything else fails.
 * Used for the issuer-signed JWT of a credential and for the Status List Token of its issuer.
 */
export function issuerKeyOf(
  header: Record<string, unknown>,
  iss: unknown,
  context: VerificationContext,
): Promise<KeyLookup> {
  // One verification looks the same key up twice: for the credential (issuer_signature) and for its
  // Status List Token (revocation), signed under the same iss and kid. Without x5c the answer
  // depends on iss and kid alone, so it is looked up once per verification.
  if (
    header.x5c !== undefined ||
    typeof iss !== "string" ||
    (header.kid !== undefined && typeof header.kid !== "string")
  ) {
    return lookUpIssuerKey(header, iss, context);
  }
  let lookups = LOOKUPS.get(context);
  if (!lookups) {
    lookups = new Map();
    LOOKUPS.set(context, lookups);
  }
  const key = `${iss}\n${header.kid ?? ""}`;
  let lookup = lookups.get(key);
  if (!lookup) {
    lookup = lookUpIssuerKey(header, iss, context);
    lookups.set(key, lookup);
  }
  return lookup;
}

/** The key lookups of one verification (its context), by iss and kid. */
const LOOKUPS = new WeakMap<VerificationContext, Map<string, Promise<KeyLookup>>>();

async function lookUpIssuerKey(
  header: Record<string, unknown>,
  iss: unknown,
  context: VerificationContext,
): Promise<KeyLookup> {
  if (typeof iss !== "string" || iss === "") {
    return { outcome: failed("issuer_missing", "the credential has no iss: no key can be bound to it") };
  }
  const kid = typeof header.kid === "string" ? header.kid : undefined;
  if (header.kid !== undefined && kid === undefined) {
    return { outcome: failed("issuer_key_unresolvable", "the JWT's kid is not a string") };
  }
  if (iss.startsWith("did:")) return issuerKeyOfDidIss(context.ports.ledger, iss, kid);
  if (!isHttpIdentifier(iss)) {
    return {
      outcome: failed(
        "issuer_unsupported",
        "the credential's iss is neither a DID nor an http(s) URL: no key is bound to it",
      ),
    };
  }
  if (header.x5c !== undefined) return issuerKeyOfX5c(header.x5c, iss, await x5cAnchors(context), context.now);
  return issuerKeyOfJwtVcIssuer(context.ports, iss, kid);
}
