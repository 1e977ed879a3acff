import { OAuthError } from "@attesto/runtime";

/** 400 `invalid_request` in the OAuth error shape: what the presentation endpoint answers (spec §7). */
export const invalidRequest = (description: string, cause?: unknown) =>
  new OAuthError(400, "invalid_request", description, cause === undefined ? {} : { cause });
