import { type ArgumentKinds, compileOnce } from "@attesto/store";
import { type Kysely, type QueryCreator, type Selectable, sql } from "kysely";
import type { Offer, OfferGrant, OfferSigning } from "../domain/offer.js";
import type { OfferRepository } from "../domain/ports.js";
import { storePrivateKeyQuery } from "./issuer-private-key.store.js";
import { recordSigningKeyQuery, type SigningKeyValues, signingKeyValues } from "./issuer-signing-key.store.js";
import type { IssuerTables, OffersTable } from "./tables.js";

type Row = Selectable<OffersTable>;

function signingOf(row: Row): OfferSigning {
  if (row.signing_mode === "x509") return { mode: "x509" };
  return {
    mode: "did",
    issuerDid: row.issuer_did!,
    issuerKid: row.issuer_kid!,
    alg: row.issuer_key_alg!,
    key:
      row.issuer_key_thumbprint === null
        ? { sealedPrivateKey: row.issuer_key_sealed! }
        : { thumbprint: row.issuer_key_thumbprint },
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

/** An offer's row as statement arguments; `claims` as JSON text, cast in the statement. */
type OfferValues = Omit<OffersTable, "claims"> & { claims: string };
const OFFER_VALUES: ArgumentKinds<OfferValues> = {
  id: "string",
  tenant: "string",
  credential_configuration_id: "string",
  vct: "string",
  claims: "string",
  signing_mode: "string",
  issuer_did: "string | null",
  issuer_kid: "string | null",
  issuer_key_alg: "string | null",
  issuer_key_sealed: "string | null",
  issuer_key_thumbprint: "string | null",
  flow: "string",
  pre_authorized_code_hash: "string | null",
  pre_authorized_code_sealed: "string | null",
  tx_code_hash: "string | null",
  issuer_state: "string | null",
  holder_did: "string | null",
  status: "string",
  expires_at: "Date",
  created_at: "Date",
  redeemed_at: "Date | null",
  redemption_id: "string | null",
};
/** The signing key stored with an offer (public record and sealed private key), as arguments of the same statement. */
type KeyValues = { [C in keyof SigningKeyValues as `key_${C}`]: SigningKeyValues[C] } & {
  key_id: string;
  key_sealed_private_key: string;
};
const KEY_VALUES: ArgumentKinds<KeyValues> = {
  key_id: "string",
  key_sealed_private_key: "string",
  key_tenant: "string",
  key_kid: "string",
  key_did: "string",
  key_public_jwk: "string",
  key_alg: "string",
  key_first_used_at: "Date",
};

function offerValues(offer: Offer): OfferValues {
  const { signing, grant } = offer;
  return {
    id: offer.id,
    tenant: offer.tenant,
    credential_configuration_id: offer.credentialConfigurationId,
    vct: offer.vct,
    // Sent as text and cast: pg would otherwise send nested arrays as PostgreSQL arrays.
    claims: JSON.stringify(offer.claims),
    signing_mode: signing.mode,
    issuer_did: signing.mode === "did" ? signing.issuerDid : null,
    issuer_kid: signing.mode === "did" ? signing.issuerKid : null,
    issuer_key_alg: signing.mode === "did" ? signing.alg : null,
    issuer_key_sealed:
      signing.mode === "did" && "sealedPrivateKey" in signing.key ? signing.key.sealedPrivateKey : null,
    issuer_key_thumbprint: signing.mode === "did" && "thumbprint" in signing.key ? signing.key.thumbprint : null,
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
  };
}

const keyValues = (values: SigningKeyValues, id: string, sealedPrivateKey: string): KeyValues => ({
  key_id: id,
  key_sealed_private_key: sealedPrivateKey,
  key_tenant: values.tenant,
  key_kid: values.kid,
  key_did: values.did,
  key_public_jwk: values.public_jwk,
  key_alg: values.alg,
  key_first_used_at: values.first_used_at,
});

const insertOfferQuery = (qc: QueryCreator<IssuerTables>, values: OfferValues) =>
  qc.insertInto("offers").values({
    ...(Object.fromEntries(
      Object.keys(OFFER_VALUES).map((column) => [column, values[column as keyof OfferValues]]),
    ) as OfferValues),
    claims: sql<Record<string, unknown>>`${values.claims}::json`,
  });

/** Offers on PostgreSQL (`db` is bound to the service's schema). The hot statements are compiled once. */
export function createOfferStore(database: Kysely<unknown>): OfferRepository {
  const db = database as Kysely<IssuerTables>;
  const insert = compileOnce(db, OFFER_VALUES, insertOfferQuery);
  // One statement: the offer, the tenant's sealed key (once) and the public key its credentials will carry.
  const insertWithKey = compileOnce(db, { ...OFFER_VALUES, ...KEY_VALUES }, (db, values: OfferValues & KeyValues) =>
    recordSigningKeyQuery(
      db
        .with("offer", (qc) => insertOfferQuery(qc, values))
        .with("private_key", (qc) =>
          storePrivateKeyQuery(qc, {
            id: values.key_id,
            tenant: values.key_tenant,
            sealed_private_key: values.key_sealed_private_key,
            created_at: values.key_first_used_at,
          }),
        ),
      {
        tenant: values.key_tenant,
        kid: values.key_kid,
        did: values.key_did,
        public_jwk: values.key_public_jwk,
        alg: values.key_alg,
        first_used_at: values.key_first_used_at,
      },
    ),
  );
  const findBy = (column: "id" | "pre_authorized_code_hash" | "issuer_state") => {
    const statement = compileOnce(db, { value: "string" }, (db, args) =>
      db.selectFrom("offers").selectAll().where(column, "=", args.value),
    );
    return async (value: string) => {
      const row = await statement.takeFirst({ value });
      return row ? toOffer(row) : undefined;
    };
  };
  /** offered -> redeemed in one conditional UPDATE: concurrent callers cannot both see `offered`. */
  const redeemQuery = (
    db: Kysely<IssuerTables>,
    column: "pre_authorized_code_hash" | "issuer_state",
    args: { value: string; now: Date; redemptionId: string | null },
  ) =>
    db
      .updateTable("offers")
      .set({ status: "redeemed", redeemed_at: args.now, redemption_id: args.redemptionId })
      .where(column, "=", args.value)
      .where("status", "=", "offered")
      .where("expires_at", ">", args.now);
  const redeemCode = compileOnce(
    db,
    { value: "string", now: "Date", redemptionId: "string | null", txCodeHash: "string" },
    (db, args) =>
      redeemQuery(db, "pre_authorized_code_hash", args)
        .where((eb) => eb.or([eb("tx_code_hash", "is", null), eb("tx_code_hash", "=", args.txCodeHash)]))
        .returningAll(),
  );
  const redeemState = compileOnce(db, { value: "string", now: "Date", redemptionId: "string | null" }, (db, args) =>
    redeemQuery(db, "issuer_state", args).returningAll(),
  );
  const findById = findBy("id");
  const findByCodeHash = findBy("pre_authorized_code_hash");
  const findByIssuerState = findBy("issuer_state");
  return {
    async insert(offer, signingKey) {
      if (!signingKey) {
        await insert.execute(offerValues(offer));
        return;
      }
      await insertWithKey.execute({
        ...offerValues(offer),
        ...keyValues(
          signingKeyValues(signingKey.key, signingKey.at),
          signingKey.privateKey.id,
          signingKey.privateKey.sealed,
        ),
      });
    },
    findById,
    findByCodeHash,
    findByIssuerState,
    async redeemPreAuthorizedCode(codeHash, txCodeHash, redemptionId, now) {
      const row = await redeemCode.takeFirst({
        value: codeHash,
        now,
        redemptionId: redemptionId ?? null,
        txCodeHash: txCodeHash ?? "",
      });
      return row ? toOffer(row) : undefined;
    },
    async redeemIssuerState(issuerState, now) {
      const row = await redeemState.takeFirst({ value: issuerState, now, redemptionId: null });
      return row ? toOffer(row) : undefined;
    },
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
