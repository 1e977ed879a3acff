import { InvalidAuthorizationDetails, InvalidScope } from "@attesto/runtime/errors";
import type { Grant } from "../grant.js";
import type { ParParameters } from "./par-parameters.js";

/** OID4VCI 1.0 §5.1.1: the authorization_details type for credentials. */
export const OPENID_CREDENTIAL = "openid_credential";

/**
 * Which credential configurations the wallet asks for, within the offer: each
 * `authorization_details` entry (type `openid_credential`, a `credential_configuration_id` of the
 * offer, `locations` naming this credential issuer when given) and each `scope` value (a
 * configuration id of the offer). Neither given: the whole offer. Without an offer (no
 * issuer_state) the request is only shape-checked here and refused at the browser step.
 */
export function selectCredentialConfigurations(
  parameters: Pick<ParParameters, "authorizationDetails" | "scopes">,
  offer: { grant: Grant; credentialIssuer: string } | undefined,
): string[] {
  const offered = offer?.grant.credentialConfigurationIds;
  const selected: string[] = [];
  for (const detail of parameters.authorizationDetails ?? []) {
    if (detail.type !== OPENID_CREDENTIAL) {
      throw new InvalidAuthorizationDetails(`authorization_details type must be ${OPENID_CREDENTIAL}`);
    }
    const id = detail.credential_configuration_id;
    if (typeof id !== "string" || id === "") {
      throw new InvalidAuthorizationDetails("authorization_details entries must carry a credential_configuration_id");
    }
    if (offered && !offered.includes(id)) {
      throw new InvalidAuthorizationDetails(
        "authorization_details names a credential configuration that is not in the credential offer",
      );
    }
    const locations = detail.locations;
    if (offer && locations !== undefined) {
      if (!Array.isArray(locations) || !locations.includes(offer.credentialIssuer)) {
        throw new InvalidAuthorizationDetails(`authorization_details locations must name ${offer.credentialIssuer}`);
      }
    }
    selected.push(id);
  }
  for (const scope of parameters.scopes) {
    if (offered && !offered.includes(scope)) {
      throw new InvalidScope("scope names a credential configuration that is not in the credential offer");
    }
    selected.push(scope);
  }
  if (selected.length === 0 && offered) return [...offered];
  return [...new Set(selected)];
}
