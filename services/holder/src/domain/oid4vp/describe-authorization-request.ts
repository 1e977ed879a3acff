import { credentialStatusesOf, type HeldCredentialStatus } from "../credentials/credential-status.js";
import type { JsonObject } from "../http/read-json.js";
import type { StoredCredential } from "../model.js";
import type { HolderDependencies, WarningLog } from "../ports.js";
import { matchCredentials } from "./match-credentials.js";
import { resolveAuthorizationRequest } from "./resolve-authorization-request.js";
import { type ExclusionReason, exclusionReasonOf, type StatusOptIn } from "./status-admission.js";

/** POST /v1/oid4vp/request-details (this service's README). */
export interface AuthorizationRequestDetails {
  client_id: string;
  client_metadata: JsonObject;
  dcql_query: JsonObject;
  matching_credentials: Array<{
    credential_id: string;
    query_id: string;
    vct: string;
    claims: Record<string, unknown>;
    credential_status: HeldCredentialStatus;
  }>;
  /** Credentials that answer a query but are not offered, and why. */
  excluded_credentials: Array<{ credential_id: string; query_id: string; vct: string; reason: ExclusionReason }>;
  nonce: string;
  state: string | null;
  response_mode: string;
  response_uri: string;
  expires_at: string;
}

/** Expired credentials are never offered for presentation: a verifier would refuse them. */
export const presentable = (credentials: StoredCredential[], now: Date) =>
  credentials.filter((credential) => !credential.expiresAt || credential.expiresAt.getTime() > now.getTime());

/**
 * What a verifier asks, and which of the holder's credentials answer each credential query: the
 * unexpired ones whose status (read from their status lists) `optIn` admits are offered, the
 * revoked or suspended ones are listed as excluded with the reason.
 */
export async function describeAuthorizationRequest(
  deps: Pick<HolderDependencies, "credentials" | "statusLists" | "ledger" | "http"> &
    Pick<HolderDependencies, "verifierTrustAnchors" | "now" | "clockSkewSeconds">,
  userUuid: string,
  input: { uri: string; optIn: StatusOptIn },
  log: WarningLog,
): Promise<AuthorizationRequestDetails> {
  const request = await resolveAuthorizationRequest(deps, input.uri);
  const credentials = presentable(await deps.credentials.listWithContents(userUuid), deps.now());
  const matches = [...matchCredentials(request.dcqlQuery, credentials).values()].flat();
  const matched = new Map(matches.map((match) => [match.credential.id, match.credential]));
  const statuses = await credentialStatusesOf(deps, [...matched.values()], log);
  const statusOf = (id: string) => statuses.get(id)!.status;
  const offered = matches.filter((match) => !exclusionReasonOf(statusOf(match.credential.id), input.optIn));
  return {
    client_id: request.clientId,
    client_metadata: request.clientMetadata,
    dcql_query: request.dcqlQuery,
    matching_credentials: offered.map((match) => ({
      credential_id: match.credential.id,
      query_id: match.queryId,
      vct: match.credential.vct,
      claims: match.claims,
      credential_status: statusOf(match.credential.id),
    })),
    excluded_credentials: matches.flatMap((match) => {
      const reason = exclusionReasonOf(statusOf(match.credential.id), input.optIn);
      return reason
        ? [{ credential_id: match.credential.id, query_id: match.queryId, vct: match.credential.vct, reason }]
        : [];
    }),
    nonce: request.nonce,
    state: request.state ?? null,
    response_mode: request.responseMode,
    response_uri: request.responseUri,
    expires_at: request.expiresAt.toISOString(),
  };
}
