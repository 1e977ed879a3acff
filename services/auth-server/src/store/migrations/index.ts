import type { Migrations } from "@attesto/store";
import { createAuthorizationCodeFlow } from "./0001-authorization-code-flow.js";
import { createUnansweredRedemptions } from "./0002-unanswered-redemptions.js";

/** Migrations of the auth_server schema, applied in name order at start-up. */
export const migrations: Migrations = {
  "0001_authorization_code_flow": createAuthorizationCodeFlow,
  "0002_unanswered_redemptions": createUnansweredRedemptions,
};
