import { compileOnce } from "@attesto/store";
import type { Kysely, QueryCreator } from "kysely";
import type { IssuerPrivateKeyRepository } from "../domain/ports.js";

/** Row of `issuer_private_keys` (migration 0010). */
export interface IssuerPrivateKeysTable {
  id: string;
  tenant: string;
  sealed_private_key: string;
  created_at: Date;
}

type Tables = { issuer_private_keys: IssuerPrivateKeysTable };

/** A tenant key's row; kept as first stored (a thumbprint names one key, so a later row is the same key). */
export function storePrivateKeyQuery<DB extends Tables>(creator: QueryCreator<DB>, values: IssuerPrivateKeysTable) {
  const qc = creator as unknown as QueryCreator<Tables>;
  return qc
    .insertInto("issuer_private_keys")
    .values(values)
    .onConflict((conflict) => conflict.column("id").doNothing());
}

/** Tenants' sealed DID-path private keys on PostgreSQL (`db` is bound to the service's schema). */
export function createIssuerPrivateKeyStore(database: Kysely<unknown>): IssuerPrivateKeyRepository {
  const db = database as Kysely<Tables>;
  const find = compileOnce(db, { id: "string" }, (db, args) =>
    db.selectFrom("issuer_private_keys").select("sealed_private_key").where("id", "=", args.id),
  );
  return {
    async findSealed(id) {
      return (await find.takeFirst({ id }))?.sealed_private_key;
    },
  };
}
