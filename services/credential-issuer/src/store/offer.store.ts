import { type Kysely, type Selectable, sql } from "kysely";
import type { Offer, OfferGrant, OfferSigning } from "../domain/offer.js";
import type { OfferRepository } from "../domain/repositories.js";
import { recordSigningKeyQuery } from "./issuer-signing-key.store.js";
import type { IssuerTables, OffersTable } from "./tables.js";

type Row = Selectable<OffersTable>;

function signingOf(row: Row): OfferSigning {
  if (row.signing_mode === "x509") return { mode: "x509" };
  return {
    mode: "did",
    issuerDid: row.issuer_did!,
    issuerKid: row.issuer_kid!,
    alg: row.issuer_key_alg!,
    sealedPrivateKey: row.issuer_key_sealed!,
  };
}

function grantOf(row: Row): OfferGrant {
  if (row.flow === "authorization-code") return { type: "authorization-code", issuerState: row.issuer_state! };
  return {
    type: "pre-authorized",
    codeHash: row.pre_authorized_code_hash!,
    sealedCode: row.pre_authorized_code_sealed!,
    ...(row.tx_code_hash === null ? {} : { txCodeHash: row.tx_code_hash }),
  };
}

function toOffer(row: Row): Offer {
  return {
    id: row.id,
    tenant: row.tenant,
    credentialConfigurationId: row.credential_configuration_id,
    vct: row.vct,
    claims: row.claims,
    signing: signingOf(row),
    grant: grantOf(row),
    ...(row.holder_did === null ? {} : { holderDid: row.holder_did }),
    status: row.status,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    ...(row.redeemed_at === null ? {} : { redeemedAt: row.redeemed_at }),
    ...(row.redemption_id === null ? {} : { redemptionId: row.redemption_id }),
  };
}

function toRow(offer: Offer) {
  const { signing, grant } = offer;
  return {
    id: offer.id,
    tenant: offer.tenant,
    credential_configuration_id: offer.credentialConfigurationId,
    vct: offer.vct,
    // Sent as text and cast: pg would otherwise send nested arrays as PostgreSQL arrays.
    claims: sql<Record<string, unknown>>`${JSON.stringify(offer.claims)}::json`,
    signing_mode: signing.mode,
    issuer_did: signing.mode === "did" ? signing.issuerDid : null,
    issuer_kid: signing.mode === "did" ? signing.issuerKid : null,
    issuer_key_alg: signing.mode === "did" ? signing.alg : null,
    issuer_key_sealed: signing.mode === "did" ? signing.sealedPrivateKey : null,
    flow: grant.type,
    pre_authorized_code_hash: grant.type === "pre-authorized" ? grant.codeHash : null,
    pre_authorized_code_sealed: grant.type === "pre-authorized" ? grant.sealedCode : null,
    tx_code_hash: grant.type === "pre-authorized" ? (grant.txCodeHash ?? null) : null,
    issuer_state: grant.type === "authorization-code" ? grant.issuerState : null,
    holder_did: offer.holderDid ?? null,
    status: offer.status,
    expires_at: offer.expiresAt,
    created_at: offer.createdAt,
    redeemed_at: offer.redeemedAt ?? null,
    redemption_id: offer.redemptionId ?? null,
  } as const;
}

/** Offers on PostgreSQL (`db` is bound to the service's schema). */
export function createOfferStore(database: Kysely<unknown>): OfferRepository {
  const db = database as Kysely<IssuerTables>;
  const findBy = async (column: "id" | "pre_authorized_code_hash" | "issuer_state", value: string) => {
    const row = await db.selectFrom("offers").selectAll().where(column, "=", value).executeTakeFirst();
    return row ? toOffer(row) : undefined;
  };
  /** offered -> redeemed in one conditional UPDATE: concurrent callers cannot both see `offered`. */
  const redeem = async (
    column: "pre_authorized_code_hash" | "issuer_state",
    value: string,
    now: Date,
    txCodeHash?: string,
    redemptionId?: string,
  ) => {
    let update = db
      .updateTable("offers")
      .set({ status: "redeemed", redeemed_at: now, redemption_id: redemptionId ?? null })
      .where(column, "=", value)
      .where("status", "=", "offered")
      .where("expires_at", ">", now);
    if (column === "pre_authorized_code_hash") {
      update = update.where((eb) => eb.or([eb("tx_code_hash", "is", null), eb("tx_code_hash", "=", txCodeHash ?? "")]));
    }
    const row = await update.returningAll().executeTakeFirst();
    return row ? toOffer(row) : undefined;
  };
  return {
    async insert(offer, signingKey) {
      if (!signingKey) {
        await db.insertInto("offers").values(toRow(offer)).execute();
        return;
      }
      // One statement: the offer, and the key its credentials will carry.
      const withOffer = db.with("offer", (qc) => qc.insertInto("offers").values(toRow(offer)));
      await recordSigningKeyQuery(withOffer, signingKey.key, signingKey.at).execute();
    },
    findById: (id) => findBy("id", id),
    findByCodeHash: (codeHash) => findBy("pre_authorized_code_hash", codeHash),
    findByIssuerState: (issuerState) => findBy("issuer_state", issuerState),
    redeemPreAuthorizedCode: (codeHash, txCodeHash, redemptionId, now) =>
      redeem("pre_authorized_code_hash", codeHash, now, txCodeHash, redemptionId),
    redeemIssuerState: (issuerState, now) => redeem("issuer_state", issuerState, now),
    async findDidOffersWithUnrecordedKey() {
      const rows = await db
        .selectFrom("offers")
        .distinctOn(["offers.tenant", "offers.issuer_kid"])
        .selectAll("offers")
        .where("offers.signing_mode", "=", "did")
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("issuer_signing_keys as keys")
                .select("keys.kid")
                .whereRef("keys.tenant", "=", "offers.tenant")
                .whereRef("keys.kid", "=", "offers.issuer_kid"),
            ),
          ),
        )
        .orderBy("offers.tenant")
        .orderBy("offers.issuer_kid")
        .orderBy("offers.created_at", "desc")
        .execute();
      return rows.map(toOffer);
    },
  };
}
