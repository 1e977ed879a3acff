/**
 * Query parameters whose values may appear in logs: they name what was asked for, never who asked
 * or with what credential. Every other parameter's value (access_token, code, request_uri, state,
 * nonce, pre-authorized_code, tx_code, api keys, anything unknown) is logged as `[redacted]`.
 */
export const LOGGED_QUERY_PARAMETERS: ReadonlySet<string> = new Set([
  "client_id",
  "response_type",
  "response_mode",
  "scope",
  "code_challenge_method",
  "prompt",
  "ui_locales",
  "vct",
  "format",
  "type",
  "status",
  "event",
  "page",
  "page_size",
  "limit",
  "offset",
  "cursor",
  "sort",
  "order",
]);

/** Parameters logged by name with the value `[redacted]`: what they are helps, their values are secrets. */
const SECRET_QUERY_PARAMETERS: ReadonlySet<string> = new Set([
  "access_token",
  "api_key",
  "client_assertion",
  "code",
  "code_verifier",
  "credential_offer",
  "credential_offer_uri",
  "id_token",
  "nonce",
  "password",
  "pre-authorized_code",
  "redirect_uri",
  "refresh_token",
  "request",
  "request_uri",
  "response",
  "secret",
  "state",
  "token",
  "tx_code",
  "vp_token",
]);

/**
 * A URL (absolute, or a path with a query as in a request line) as logs may show it: scheme, host
 * and path kept, values of allow-listed query parameters kept, known secret parameters as
 * `name=[redacted]`, any other parameter (name and value: a name can be a secret too) as
 * `[redacted]`, the fragment and any credentials dropped.
 */
export function redactUrl(url: string): string {
  const hashAt = url.indexOf("#");
  const withoutHash = hashAt === -1 ? url : url.slice(0, hashAt);
  const queryAt = withoutHash.indexOf("?");
  let base = queryAt === -1 ? withoutHash : withoutHash.slice(0, queryAt);
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(base)) base = base.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/]*@/i, "$1");
  if (queryAt === -1) return base;
  const parts = withoutHash
    .slice(queryAt + 1)
    .split("&")
    .filter((part) => part !== "")
    .map((part) => {
      const equals = part.indexOf("=");
      const rawName = equals === -1 ? part : part.slice(0, equals);
      let name: string;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, " "));
      } catch {
        return "[redacted]";
      }
      if (LOGGED_QUERY_PARAMETERS.has(name)) return part;
      if (SECRET_QUERY_PARAMETERS.has(name)) return `${name}=[redacted]`;
      return "[redacted]";
    });
  return parts.length === 0 ? base : `${base}?${parts.join("&")}`;
}
