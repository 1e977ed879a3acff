import type { HolderDependencies } from "../dependencies.js";
import type { JsonObject } from "../http/read-json.js";
import type { StoredCredential } from "../model.js";
import { matchCredentials } from "./match-credentials.js";
import { resolveAuthorizationRequest } from "./resolve-authorization-request.js";

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
  }>;
  nonce: string;
  state: string | null;
  response_mode: string;
  response_uri: string;
  expires_at: string;
}

/** Expired credentials are never offered for presentation: a verifier would refuse them. */
export const presentable = (credentials: StoredCredential[], now: Date) =>
  credentials.filter((credential) => !credential.expiresAt || credential.expiresAt.getTime() > now.getTime());

/** What a verifier asks, and which of the holder's credentials answer each credential query. */
export async function describeAuthorizationRequest(
  deps: HolderDependencies,
  userUuid: string,
  uri: string,
): Promise<AuthorizationRequestDetails> {
  const request = await resolveAuthorizationRequest(deps, uri);
  const credentials = presentable(await deps.credentials.listWithContents(userUuid), deps.now());
  const matches = matchCredentials(request.dcqlQuery, credentials);
  return {
    client_id: request.clientId,
    client_metadata: request.clientMetadata,
    dcql_query: request.dcqlQuery,
    matching_credentials: [...matches.values()].flat().map((match) => ({
      credential_id: match.credential.id,
      query_id: match.queryId,
      vct: match.credential.vct,
      claims: match.claims,
    })),
    nonce: request.nonce,
    state: request.state ?? null,
    response_mode: request.responseMode,
    response_uri: request.responseUri,
    expires_at: request.expiresAt.toISOString(),
  };
}
