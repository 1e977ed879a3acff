import type { InteropPlatform } from "../../interop/support/platform.js";
import { type CreatedOffer, DIPLOMA_CLAIMS, type Tenant } from "../../interop/support/tenant.js";

/**
 * POST /v1/offers with `flow: authorization-code` (the credential-issuer README), X.509 (HAIP) signing: the offer
 * carries `grants.authorization_code.issuer_state`, and its token must be DPoP-bound.
 */
export async function createAuthorizationCodeOffer(
  platform: InteropPlatform,
  tenant: Tenant,
  claims: Record<string, unknown> = DIPLOMA_CLAIMS,
): Promise<CreatedOffer> {
  const response = await fetch(`${platform.url("credential-issuer")}/v1/offers`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
    body: JSON.stringify({ credential: { config_id: "university-diploma", claims }, flow: "authorization-code" }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST /v1/offers: expected 201, got ${response.status} ${text}`);
  return JSON.parse(text) as CreatedOffer;
}
