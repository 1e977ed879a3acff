import {
  type CredentialStatusReading,
  decodeCompactJwt,
  readCredentialStatus,
  type StatusListEntryReference,
  StatusListTokenError,
  statusListReferenceOf,
} from "@attesto/protocol";
import { decodeIssuerSigned } from "@attesto/protocol/mdoc";
import { AppError } from "@attesto/runtime/errors";
import type { StoredCredential } from "../model.js";
import type { HolderDependencies, WarningLog } from "../ports.js";
import { resolveIssuerKey } from "../sd-jwt/resolve-issuer-key.js";

/**
 * A held credential's current status (`credential_status`, this service's README): `valid`,
 * `revoked` or `suspended` as its issuer's Token Status List says, `status_unknown` when the list
 * cannot be read or trusted (unreachable, invalid, expired, not signed by a key bound to the
 * credential's issuer, the index beyond it), `no_status` when the credential names no status list.
 */
export type HeldCredentialStatus = "valid" | "revoked" | "suspended" | "status_unknown" | "no_status";

export interface CredentialStatusView {
  status: HeldCredentialStatus;
  /** Why the status is `status_unknown` (safe to show: no token, key or claim). */
  reason?: string;
}

type StatusDependencies = Pick<HolderDependencies, "statusLists" | "ledger" | "http" | "now" | "clockSkewSeconds">;

/** What the status read needs of a stored credential (format and issuer: mdocs only). */
type HeldCredential = Pick<StoredCredential, "raw"> & Partial<Pick<StoredCredential, "format" | "credentialIssuer">>;

const unknown = (reason: string): CredentialStatusView => ({ status: "status_unknown", reason });

/**
 * The issuer and `status.status_list` of a stored (verified on receipt) credential: an SD-JWT VC's
 * issuer JWT `iss` and claim, or an mdoc's MSO `status` with the credential issuer it came from.
 */
function statusReferenceOf(credential: HeldCredential): {
  iss: string;
  reference: StatusListEntryReference | undefined;
} {
  if (credential.format === "mso_mdoc") {
    return { iss: credential.credentialIssuer ?? "", reference: decodeIssuerSigned(credential.raw).status };
  }
  const raw = credential.raw;
  const { payload } = decodeCompactJwt(raw.split("~")[0] ?? "", "invalid_credential", "the issuer JWT");
  return { iss: String(payload.iss), reference: statusListReferenceOf(payload) };
}

const viewOf = (reading: CredentialStatusReading): CredentialStatusView =>
  reading.state === "unknown" ? unknown(reading.reason) : { status: reading.state };

/**
 * The status of one held credential from the Status List Token its `status.status_list` names
 * (the protocol's readCredentialStatus, as Attesto's verifier reads it): fetched through the
 * outbound request guard and cached by its `ttl`, `sub` and expiry checked, signed by a key bound
 * to the credential's `iss` by the same rules the credential's own signature was checked with on
 * receipt (resolveIssuerKey: the DID's key, the x5c leaf naming `iss`, or its JWT VC Issuer
 * Metadata). Never throws: whatever goes wrong is `status_unknown` (logged at warn when unexpected),
 * so a listing never fails because an issuer is down.
 */
export async function credentialStatusOf(
  deps: StatusDependencies,
  credential: HeldCredential,
  log: WarningLog,
): Promise<CredentialStatusView> {
  try {
    const { iss, reference } = statusReferenceOf(credential);
    if (!reference) return { status: "no_status" };
    return viewOf(
      await readCredentialStatus({
        source: deps.statusLists,
        reference,
        iss,
        now: deps.now(),
        clockSkewSeconds: deps.clockSkewSeconds,
        async keyOf(header) {
          try {
            return { jwk: (await resolveIssuerKey(deps, header, { iss })).publicJwk };
          } catch (error) {
            if (error instanceof AppError) return { unbound: error.message };
            throw error;
          }
        },
      }),
    );
  } catch (error) {
    if (error instanceof StatusListTokenError) return unknown(error.message);
    log.warn({ err: { name: (error as Error)?.name } }, "credential status could not be read");
    return unknown("the credential's status could not be read");
  }
}

/** The status of each credential (concurrently; one fetch per status list URI thanks to the cache), by id. */
export async function credentialStatusesOf(
  deps: StatusDependencies,
  credentials: Array<HeldCredential & Pick<StoredCredential, "id">>,
  log: WarningLog,
): Promise<Map<string, CredentialStatusView>> {
  const views = await Promise.all(credentials.map((credential) => credentialStatusOf(deps, credential, log)));
  return new Map(credentials.map((credential, index) => [credential.id, views[index]!]));
}
