import { AppError } from "@attesto/runtime/errors";

/**
 * A browser-facing failure of /v1/authorize or /v1/authorize/submit: answered with an HTML error
 * page (never a redirect to a URI that was not verified). `title` and `message` are shown as is.
 */
export class AuthorizationPageError extends AppError {
  readonly title: string;

  constructor(status: number, code: string, title: string, message: string, options: { cause?: unknown } = {}) {
    super(status, code, message, options);
    this.title = title;
  }
}

const pageError = (status: number, code: string, title: string, message: string) => () =>
  new AuthorizationPageError(status, code, title, message);

export const incompleteAuthorizationRequest = pageError(
  400,
  "invalid_request",
  "Incomplete authorization request",
  "The link that opened this page lacks client_id or request_uri. Start again from your wallet.",
);
export const unknownAuthorizationRequest = pageError(
  400,
  "invalid_request_uri",
  "Authorization request not found",
  "This authorization request is unknown. Start again from your wallet.",
);
export const expiredAuthorizationRequest = pageError(
  400,
  "invalid_request_uri",
  "Authorization request expired",
  "This authorization request has expired. Start again from your wallet.",
);
export const usedAuthorizationRequest = pageError(
  400,
  "invalid_request_uri",
  "Authorization request already used",
  "This authorization request has already been used. Start again from your wallet.",
);
export const unknownClient = pageError(
  400,
  "invalid_client",
  "Unknown client",
  "The application that opened this page is not the one that made the authorization request.",
);
export const incompleteConsentForm = pageError(
  400,
  "invalid_request",
  "Incomplete form",
  "The form was sent without its fields. Start again from your wallet.",
);
export const browserSessionMissing = pageError(
  403,
  "session_required",
  "Your session has ended",
  "This page needs the session cookie it was shown with (cookies may be blocked, or you signed out). Start again from your wallet.",
);
export const consentFormNotVerified = pageError(
  403,
  "csrf_token_invalid",
  "The form could not be verified",
  "The form did not come from the page this browser was shown. Start again from your wallet.",
);
export const consentAlreadyAnswered = pageError(
  400,
  "invalid_request",
  "Request already answered",
  "This authorization request has already been approved or denied.",
);
export const consentExpired = pageError(
  400,
  "invalid_request",
  "Request expired",
  "This page was open too long and has expired. Start again from your wallet.",
);
