import type { Migrations } from "@attesto/store";
import { createVerificationSessions } from "./0001-verification-sessions.js";
import { createVerifierPolicies } from "./0002-verifier-policies.js";
import { addAcceptAnyIssuer } from "./0003-accept-any-issuer.js";
import { addAcceptUnknownStatus } from "./0004-accept-unknown-status.js";
import { addX509ClientIds } from "./0005-x509-client-ids.js";
import { createDcApiSessions } from "./0006-dc-api-sessions.js";
import { addCacheTopics } from "./0007-cache-topics.js";

/** Migrations of the verifier schema, applied in name order at start-up. */
export const migrations: Migrations = {
  "0001_verification_sessions": createVerificationSessions,
  "0002_verifier_policies": createVerifierPolicies,
  "0003_accept_any_issuer": addAcceptAnyIssuer,
  "0004_accept_unknown_status": addAcceptUnknownStatus,
  "0005_x509_client_ids": addX509ClientIds,
  "0006_dc_api_sessions": createDcApiSessions,
  "0007_cache_topics": addCacheTopics,
};
