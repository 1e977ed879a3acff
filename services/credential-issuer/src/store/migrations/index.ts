import type { Migrations } from "@attesto/store";
import { createOffersAndCredentials } from "./0001-offers-and-credentials.js";
import { addOfferRedemptionId } from "./0002-offer-redemption-id.js";
import { createIssuerConfigurations } from "./0003-issuer-configurations.js";
import { createIssuerSigningKeys } from "./0004-issuer-signing-keys.js";
import { createIssuanceAllowances } from "./0005-issuance-allowances.js";
import { createCredentialLifecycle } from "./0006-credential-lifecycle.js";
import { shareNotificationId } from "./0007-shared-notification-id.js";
import { addIssuerStatusListSize } from "./0008-issuer-status-list-size.js";
import { createStatusListEntries } from "./0009-status-list-entries.js";
import { createIssuerPrivateKeys } from "./0010-issuer-private-keys.js";
import { addCacheTopics } from "./0011-cache-topics.js";
import { replaceStatusChecksWithEnums } from "./0012-status-enums.js";

/** Migrations of the credential_issuer schema, applied in name order at start-up. */
export const migrations: Migrations = {
  "0001_offers_and_credentials": createOffersAndCredentials,
  "0002_offer_redemption_id": addOfferRedemptionId,
  "0003_issuer_configurations": createIssuerConfigurations,
  "0004_issuer_signing_keys": createIssuerSigningKeys,
  "0005_issuance_allowances": createIssuanceAllowances,
  "0006_credential_lifecycle": createCredentialLifecycle,
  "0007_shared_notification_id": shareNotificationId,
  "0008_issuer_status_list_size": addIssuerStatusListSize,
  "0009_status_list_entries": createStatusListEntries,
  "0010_issuer_private_keys": createIssuerPrivateKeys,
  "0011_cache_topics": addCacheTopics,
  "0012_status_enums": replaceStatusChecksWithEnums,
};
