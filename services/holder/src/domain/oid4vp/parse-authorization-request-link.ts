import { invalidAuthorizationRequest } from "../errors.js";

/** An OID4VP authorization request link: the client id and the request object, by reference or by value. */
export interface AuthorizationRequestLink {
  /** Absent for a bare request URI: the signed request object then names its client_id. */
  clientId: string | undefined;
  requestUri: string | undefined;
  /** The request object itself (`request`), when passed by value. */
  request: string | undefined;
  requestUriMethod: "get" | "post";
}

/** Schemes of OID4VP links (OID4VP 1.0 §13.1 and the HAIP profile); https links carry the same query. */
const REQUEST_SCHEMES = new Set(["openid4vp:", "haip-vp:", "eudi-openid4vp:", "https:", "http:"]);

/**
 * Parses `openid4vp://?client_id=...&request_uri=...` (or `request=<JWT>`). Only signed requests
 * (JAR) are accepted: a request without `request_uri` or `request` is refused. A bare http(s) URL
 * with none of these parameters is taken as the request URI itself (e.g. a verifier's `request_uri`).
 */
export function parseAuthorizationRequestLink(link: string): AuthorizationRequestLink {
  let url: URL;
  try {
    url = new URL(link.trim());
  } catch {
    throw invalidAuthorizationRequest("authorization_request_uri is not a valid openid4vp:// link");
  }
  if (!REQUEST_SCHEMES.has(url.protocol)) {
    throw invalidAuthorizationRequest("authorization_request_uri must be an openid4vp:// link");
  }
  const clientId = url.searchParams.get("client_id");
  const isBareRequestUri =
    (url.protocol === "https:" || url.protocol === "http:") &&
    !["client_id", "request_uri", "request"].some((name) => url.searchParams.has(name));
  if (isBareRequestUri)
    return { clientId: undefined, requestUri: url.href, request: undefined, requestUriMethod: "get" };
  if (!clientId) throw invalidAuthorizationRequest("the authorization request link has no client_id");
  const requestUri = url.searchParams.get("request_uri") ?? undefined;
  const request = url.searchParams.get("request") ?? undefined;
  if (requestUri === undefined && request === undefined) {
    throw invalidAuthorizationRequest(
      "the authorization request link has neither request_uri nor request (unsigned requests are not accepted)",
    );
  }
  if (requestUri !== undefined && request !== undefined) {
    throw invalidAuthorizationRequest("the authorization request link must not carry both request_uri and request");
  }
  const method = (url.searchParams.get("request_uri_method") ?? "get").toLowerCase();
  if (method !== "get" && method !== "post") {
    throw invalidAuthorizationRequest("request_uri_method must be get or post");
  }
  return { clientId, requestUri, request, requestUriMethod: method };
}
