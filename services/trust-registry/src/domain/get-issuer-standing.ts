import type { TrustRegistryDependencies } from "./ports.js";
import { allows, stateOf } from "./tenant-lifecycle.js";

export type IssuerStanding = { standing: "unknown" } | { standing: "active" | "deactivated"; tenant: string };

/** The tenant an `iss` of the form `<credential issuer URL>/<tenant>` names, if it is one. */
function tenantOfIssuerUrl(domain: Pick<TrustRegistryDependencies, "issuerUrlOf">, iss: string): string | undefined {
  const prefix = domain.issuerUrlOf("");
  if (!iss.startsWith(prefix)) return undefined;
  const rest = iss.slice(prefix.length);
  return rest !== "" && !rest.includes("/") ? rest.toLowerCase() : undefined;
}

const didOf = (value: string) => value.split("#")[0] ?? value;

/**
 * TenantService.GetIssuerStanding: whether the issuer a credential names (its `iss`, or the DID that
 * signed it) is an issuer tenant of this platform, and whether the lifecycle lets it be trusted now.
 * Read from the database on every call: a deactivation is seen at once by every verifier replica.
 */
export async function getIssuerStanding(
  domain: Pick<TrustRegistryDependencies, "issuerUrlOf" | "tenants" | "dids">,
  issuer: { iss: string; did?: string | undefined },
): Promise<IssuerStanding> {
  let tenant = tenantOfIssuerUrl(domain, issuer.iss);
  if (tenant === undefined) {
    const did = issuer.iss.startsWith("did:") ? didOf(issuer.iss) : issuer.did ? didOf(issuer.did) : undefined;
    tenant = did ? (await domain.dids.find(did))?.tenant : undefined;
  }
  if (tenant === undefined) return { standing: "unknown" };
  const record = await domain.tenants.findLifecycle(tenant);
  if (!record?.isIssuer) return { standing: "unknown" };
  return { standing: allows(stateOf(record.deactivatedAt), "be_trusted") ? "active" : "deactivated", tenant };
}
