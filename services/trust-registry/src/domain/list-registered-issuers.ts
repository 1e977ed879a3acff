import type { TrustRegistryDependencies } from "./ports.js";

/** An issuer the platform vouches for: an active tenant with the issuer role. */
export interface RegisteredIssuer {
  tenant: string;
  /** The `iss` of its credentials. */
  issuerUrl: string;
  dids: string[];
}

/**
 * What verifiers trust by default: every active issuer tenant (its issuer URL and active DIDs) and
 * the X.509 roots its signing certificates chain to (the platform root CA, and the self-signed roots
 * of chains active issuer tenants imported). Read-only.
 */
export async function listRegisteredIssuers(
  domain: Pick<TrustRegistryDependencies, "dids" | "custody" | "issuerUrlOf">,
): Promise<{ issuers: RegisteredIssuer[]; x509Roots: string[] }> {
  const issuers = (await domain.dids.listActiveIssuers()).map(({ tenant, dids }) => ({
    tenant,
    issuerUrl: domain.issuerUrlOf(tenant),
    dids,
  }));
  const active = new Set(issuers.map((issuer) => issuer.tenant));
  const imported = (await domain.custody.importedTrustAnchors())
    .filter(({ tenant }) => active.has(tenant))
    .map(({ trustAnchor }) => trustAnchor);
  const x509Roots = [...new Set([...(await domain.custody.trustAnchors()), ...imported])];
  return { issuers, x509Roots };
}
