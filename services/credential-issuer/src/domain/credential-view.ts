import type { CredentialRecord } from "./credential-record.js";

/** A credential as the admin API shows it (this service's README "Issued credentials"): never its claims. */
export interface CredentialView {
  id: string;
  offer_id: string;
  vct: string;
  status: CredentialRecord["status"];
  issued_at: string;
  expires_at: string;
  status_changed_at: string | null;
  /** The wallet's latest notification (POST /notification), or null. */
  notification: { event: string; event_description?: string; notified_at: string } | null;
}

export const credentialViewOf = (record: CredentialRecord): CredentialView => ({
  id: record.id,
  offer_id: record.offerId,
  vct: record.vct,
  status: record.status,
  issued_at: record.issuedAt.toISOString(),
  expires_at: record.expiresAt.toISOString(),
  status_changed_at: record.statusChangedAt?.toISOString() ?? null,
  notification: record.notification
    ? {
        event: record.notification.event,
        ...(record.notification.description === undefined
          ? {}
          : { event_description: record.notification.description }),
        notified_at: record.notification.at.toISOString(),
      }
    : null,
});
