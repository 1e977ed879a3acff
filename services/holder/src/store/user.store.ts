import type { Kysely } from "kysely";
import type { User } from "../domain/model.js";
import type { UserRepository } from "../domain/ports.js";
import type { HolderTables } from "./tables.js";

/** Holder accounts on PostgreSQL (`db` is bound to the service's schema). */
export function createUserStore(database: Kysely<unknown>): UserRepository {
  const db = database as Kysely<HolderTables>;
  return {
    async insert(user) {
      await db
        .insertInto("users")
        .values({ uuid: user.uuid, name: user.name, password_hash: user.passwordHash, created_at: user.createdAt })
        .execute();
    },
    async find(uuid): Promise<User | undefined> {
      const row = await db.selectFrom("users").selectAll().where("uuid", "=", uuid).executeTakeFirst();
      return row
        ? { uuid: row.uuid, name: row.name, passwordHash: row.password_hash, createdAt: row.created_at }
        : undefined;
    },
  };
}
