import { type Generated, type Kysely, type Migration, sql } from "kysely";

/**
 * Sliding-window rate-limit counters in PostgreSQL, so a limit holds across replicas.
 * Each allowed hit is a row; a per-key advisory lock serialises concurrent hits on one key, so
 * "at most max per window" holds exactly. Refused hits are not recorded.
 */
export const rateLimitMigrations: Record<string, Migration> = {
  "0000_runtime_rate_limit_hits": {
    async up(db) {
      await db.schema
        .createTable("rate_limit_hits")
        .addColumn("key", "text", (c) => c.notNull())
        .addColumn("hit_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn("expires_at", "timestamptz", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("rate_limit_hits_key_hit_at")
        .on("rate_limit_hits")
        .columns(["key", "hit_at"])
        .execute();
      await db.schema.createIndex("rate_limit_hits_expires_at").on("rate_limit_hits").column("expires_at").execute();
    },
  },
};

interface RateLimitTables {
  rate_limit_hits: { key: string; hit_at: Generated<Date>; expires_at: Date };
}

export interface RateLimitDecision {
  allowed: boolean;
  remaining: number;
  retryAfterSeconds: number;
}

/** Share of calls that also purge expired rows of every key. */
const PURGE_PROBABILITY = 0.01;

export function createPostgresRateLimitCounter(db: Kysely<unknown>) {
  const tables = db as unknown as Kysely<RateLimitTables>;
  return {
    async consume(key: string, limit: { max: number; windowSeconds: number }): Promise<RateLimitDecision> {
      const window = sql`make_interval(secs => ${limit.windowSeconds})`;
      const decision = await tables.transaction().execute(async (trx) => {
        await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 42))`.execute(trx);
        const row = await trx
          .selectFrom("rate_limit_hits")
          .select([
            (eb) => eb.fn.countAll<number>().as("count"),
            sql<number>`extract(epoch from (min(hit_at) + ${window} - now()))`.as("oldest_expires_in"),
          ])
          .where("key", "=", key)
          .where("hit_at", ">", sql<Date>`now() - ${window}`)
          .executeTakeFirstOrThrow();
        const count = Number(row.count);
        if (count >= limit.max) {
          return {
            allowed: false,
            remaining: 0,
            retryAfterSeconds: Math.max(1, Math.ceil(Number(row.oldest_expires_in))),
          };
        }
        await trx
          .insertInto("rate_limit_hits")
          .values({ key, expires_at: sql<Date>`now() + ${window}` })
          .execute();
        await trx
          .deleteFrom("rate_limit_hits")
          .where("key", "=", key)
          .where("expires_at", "<=", sql<Date>`now()`)
          .execute();
        return { allowed: true, remaining: limit.max - count - 1, retryAfterSeconds: 0 };
      });
      if (Math.random() < PURGE_PROBABILITY) {
        await tables.deleteFrom("rate_limit_hits").where("expires_at", "<=", sql<Date>`now()`).execute();
      }
      return decision;
    },

    async refund(key: string): Promise<void> {
      const latest = tables
        .selectFrom("rate_limit_hits")
        .select(sql<string>`ctid`.as("ctid"))
        .where("key", "=", key)
        .orderBy("hit_at", "desc")
        .limit(1);
      await tables.deleteFrom("rate_limit_hits").where(sql<string>`ctid`, "=", latest).execute();
    },
  };
}
