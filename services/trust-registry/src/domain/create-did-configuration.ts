import { notFound } from "@attesto/runtime/errors";
import { createDomainLinkageCredential } from "./create-domain-linkage-credential.js";
import type { TrustRegistryDependencies } from "./ports.js";

/**
 * `GET /.well-known/did-configuration.json/:tenant`: one Domain Linkage Credential per active DID of
 * the tenant, each signed in custody by that DID's key, for the tenant's origin. Unknown tenant => 404;
 * a tenant without DIDs gets an empty list.
 */
export async function createDidConfiguration(
  domain: Pick<TrustRegistryDependencies, "tenants" | "dids" | "custody" | "clock" | "domainLinkageOrigin">,
  tenantParam: string,
): Promise<string[]> {
  const account = await domain.tenants.findByTenant(tenantParam.toLowerCase());
  if (!account) throw notFound("Tenant not found");
  const origin = domain.domainLinkageOrigin(account.tenant);
  const now = domain.clock();
  const dids = await domain.dids.listActive(account.tenant);
  return Promise.all(
    dids.map((held) =>
      createDomainLinkageCredential({ did: held.did, keyId: held.keyId, origin, now }, async (signingInput) => {
        const { signature } = await domain.custody.sign(account.tenant, held.custodyKeyId, signingInput);
        return signature;
      }),
    ),
  );
}
