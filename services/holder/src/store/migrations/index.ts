import type { Migrations } from "@attesto/store";
import { createHolderTables } from "./0001-holder.js";
import { createLoginAttempts } from "./0002-login-attempts.js";
import { addIssuerIds } from "./0003-issuer-ids.js";
import { createAuthorizationFlows } from "./0004-authorization-flows.js";
import { addReferenceAnchors } from "./0005-reference-anchors.js";

/** Migrations of the holder schema, applied in name order at start-up. */
export const migrations: Migrations = {
  "0001_holder": createHolderTables,
  "0002_login_attempts": createLoginAttempts,
  "0003_issuer_ids": addIssuerIds,
  "0004_authorization_flows": createAuthorizationFlows,
  "0005_reference_anchors": addReferenceAnchors,
};
