/** A browser session at the authorization server lasts at most this long. */
export const BROWSER_SESSION_LIFETIME_SECONDS = 3600;
