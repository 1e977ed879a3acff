import { type ClaimsPathElement, selectClaims } from "@attesto/protocol";
import { credentialStatusOf } from "../credentials/credential-status.js";
import { type HolderKey, resolveHolderKey } from "../dids/resolve-holder-key.js";
import { invalidHolderKey, noMatchingCredentials, presentationFailed } from "../errors.js";
import { isJsonObject, type JsonObject } from "../http/read-json.js";
import { createMdocPresentation, mdocDisclosure } from "../mdoc/create-mdoc-presentation.js";
import type { HolderDependencies, WarningLog } from "../ports.js";
import { createSdJwtPresentation, selectDisclosures } from "../sd-jwt/create-presentation.js";
import { presentable } from "./describe-authorization-request.js";
import { matchCredentials } from "./match-credentials.js";
import { type ResolvedAuthorizationRequest, resolveAuthorizationRequest } from "./resolve-authorization-request.js";
import { exclusionReasonOf, type StatusOptIn } from "./status-admission.js";
import { submitAuthorizationResponse } from "./submit-authorization-response.js";

export interface SelectedCredential {
  credentialId: string;
  queryId: string;
  /** Claim paths to disclose (`name`, `address.street`, `nationalities.0`, or a JSON array path); all when undefined. */
  disclosedClaims: string[] | undefined;
}

export interface PresentCredentialsInput {
  authorizationRequestUri: string;
  selected: SelectedCredential[];
  holderDid: string;
  privateKey: string;
  /** Revoked or suspended credentials the caller presents anyway. */
  optIn: StatusOptIn;
}

export interface PresentationOutcome {
  success: true;
  redirectUri: string | undefined;
}

/** A disclosed_claims entry as a claims path: a JSON array, or dot-separated names (digits index arrays). */
export function claimPathOf(value: string): ClaimsPathElement[] | undefined {
  const text = value.trim();
  if (text.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(text);
      const valid =
        Array.isArray(parsed) &&
        parsed.length > 0 &&
        parsed.every((segment) => typeof segment === "string" || (Number.isInteger(segment) && segment >= 0));
      return valid ? (parsed as ClaimsPathElement[]) : undefined;
    } catch {
      return undefined;
    }
  }
  if (text === "") return undefined;
  const segments = text.split(".");
  if (segments.some((segment) => segment === "")) return undefined;
  return segments.map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}

/** Every required credential query (or one option of every required credential set) must be answered. */
function checkCoverage(query: JsonObject, answered: Set<string>): void {
  const sets = Array.isArray(query.credential_sets) ? query.credential_sets.filter(isJsonObject) : undefined;
  if (!sets) {
    const ids = (Array.isArray(query.credentials) ? query.credentials : [])
      .filter(isJsonObject)
      .map((q) => String(q.id));
    const missing = ids.find((id) => !answered.has(id));
    if (missing !== undefined)
      throw noMatchingCredentials(`no credential is selected for credential query '${missing}'`);
    return;
  }
  for (const [index, set] of sets.entries()) {
    if (set.required === false) continue;
    const options = Array.isArray(set.options) ? set.options.filter(Array.isArray) : [];
    if (!options.some((option) => option.every((id) => answered.has(String(id))))) {
      throw noMatchingCredentials(`the selection answers no option of required credential set ${index}`);
    }
  }
}

/** The vp_token: per credential query id, the presentations of the selected credentials. */
async function buildVpToken(
  deps: Pick<HolderDependencies, "credentials" | "statusLists" | "ledger" | "http" | "now" | "clockSkewSeconds">,
  userUuid: string,
  request: ResolvedAuthorizationRequest,
  holder: HolderKey,
  input: Pick<PresentCredentialsInput, "selected" | "optIn">,
  log: WarningLog,
): Promise<Record<string, string[]>> {
  const credentials = presentable(await deps.credentials.listWithContents(userUuid), deps.now());
  const matches = matchCredentials(request.dcqlQuery, credentials);
  const queries = new Map(
    (Array.isArray(request.dcqlQuery.credentials) ? request.dcqlQuery.credentials : [])
      .filter(isJsonObject)
      .map((q) => [String(q.id), q]),
  );
  const vpToken: Record<string, string[]> = {};
  const seen = new Set<string>();
  // Errors name a selection by its index, never by the ids the client sent (no input is echoed).
  for (const [index, selection] of input.selected.entries()) {
    const at = `selected_credentials[${index}]`;
    const query = queries.get(selection.queryId);
    if (!query) throw noMatchingCredentials(`${at}: its credential query is not in the request`);
    const match = matches.get(selection.queryId)?.find((m) => m.credential.id === selection.credentialId);
    if (!match) {
      const owned = credentials.some((credential) => credential.id === selection.credentialId);
      throw noMatchingCredentials(
        owned ? `${at}: the credential does not answer its credential query` : `${at}: credential not found`,
      );
    }
    const key = `${selection.queryId}|${selection.credentialId}`;
    if (seen.has(key)) throw noMatchingCredentials(`${at}: the credential is selected twice`);
    seen.add(key);
    if (match.credential.holderDid !== holder.did) {
      throw invalidHolderKey(`${at}: the credential is bound to another DID than holder_did`);
    }
    const paths = selection.disclosedClaims?.map((claim) => {
      const path = claimPathOf(claim);
      if (!path || selectClaims(match.credential.claims, path).length === 0) {
        throw noMatchingCredentials(`${at}: a disclosed claim is not a claim of the credential`);
      }
      return path;
    });
    const { status } = await credentialStatusOf(deps, match.credential, log);
    const excluded = exclusionReasonOf(status, input.optIn);
    if (excluded) {
      throw noMatchingCredentials(
        `credential ${selection.credentialId} is ${excluded} by its issuer (include_${excluded}: true presents it anyway)`,
      );
    }
    let presentation: string;
    if (match.credential.format === "mso_mdoc") {
      presentation = await createMdocPresentation({
        issuerSigned: match.credential.raw,
        disclose: mdocDisclosure(match.claims, paths, selection.credentialId),
        holder,
        request,
      });
    } else {
      try {
        presentation = await createSdJwtPresentation({
          raw: match.credential.raw,
          disclosures: selectDisclosures(match.credential.raw, paths),
          holder,
          audience: request.clientId,
          nonce: request.nonce,
          now: deps.now(),
        });
      } catch (error) {
        throw presentationFailed("the Key Binding JWT could not be signed with private_key", { cause: error });
      }
    }
    vpToken[selection.queryId] = [...(vpToken[selection.queryId] ?? []), presentation];
    if (vpToken[selection.queryId]!.length > 1 && query.multiple !== true) {
      throw noMatchingCredentials(`credential query '${selection.queryId}' accepts one credential`);
    }
  }
  checkCoverage(request.dcqlQuery, new Set(Object.keys(vpToken)));
  return vpToken;
}

/**
 * POST /v1/oid4vp/presentation, as an ordered list of steps:
 * 1. resolve and verify the authorization request again (expired => 400)  -> 400 invalid_authorization_request
 * 2. the holder key (holder_did and private_key)                           -> 400 invalid_holder_key
 * 3. each selection answers its credential query (DCQL), is the caller's, is bound to holder_did,
 *    discloses only claims it has, is not revoked or suspended by its issuer (unless opted in);
 *    every required query answered                                         -> 400 no_matching_credentials
 * 4. one SD-JWT presentation per selection: chosen disclosures + KB-JWT     -> 400 presentation_failed
 * 5. submit by direct_post or direct_post.jwt; the verifier's redirect_uri  -> 400 presentation_failed
 */
export async function presentCredentials(
  deps: Pick<HolderDependencies, "dids" | "credentials" | "statusLists" | "ledger"> &
    Pick<HolderDependencies, "http" | "verifierTrustAnchors" | "now" | "clockSkewSeconds">,
  userUuid: string,
  input: PresentCredentialsInput,
  log: WarningLog,
): Promise<PresentationOutcome> {
  const request = await resolveAuthorizationRequest(deps, input.authorizationRequestUri);
  const holder = await resolveHolderKey(deps, userUuid, input.holderDid, input.privateKey);
  if (input.selected.length === 0) throw noMatchingCredentials("selected_credentials is empty");
  const vpToken = await buildVpToken(deps, userUuid, request, holder, input, log);
  const submitted = await submitAuthorizationResponse(deps, request, vpToken);
  return { success: true, redirectUri: submitted.redirectUri };
}
