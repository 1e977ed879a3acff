import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPostgresRateLimitCounter,
  createReplayGuard,
  createTestDatabase,
  migrateToLatest,
  openDatabase,
  type TestDatabase,
} from "../src/index.js";
import { storeBackends } from "./support/backends.js";

interface Tables {
  notes: { id: number; body: string };
}

const migrations = {
  "0001_notes": {
    async up(db: import("kysely").Kysely<unknown>) {
      await db.schema
        .createTable("notes")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .addColumn("body", "text", (c) => c.notNull())
        .execute();
    },
  },
};

/** The same suite on both back ends: real PostgreSQL (when DATABASE_URL is set) and embedded PGlite. */
const backends = storeBackends();

describe.each(backends)("store on $name", (backend) => {
  let database: TestDatabase<Tables>;
  beforeAll(async () => {
    database = await createTestDatabase<Tables>({ migrations, url: await backend.url() });
  });
  afterAll(async () => {
    await database.drop();
  });

  it("creates the tables in the test's own schema", async () => {
    await database.db.insertInto("notes").values({ id: 1, body: "hello" }).execute();
    const { rows } = await sql<{ table_schema: string }>`
      SELECT table_schema FROM information_schema.tables WHERE table_name = 'notes'`.execute(database.db);
    expect(rows.map((r) => r.table_schema)).toContain(database.schema);
    expect(await database.db.selectFrom("notes").selectAll().execute()).toEqual([{ id: 1, body: "hello" }]);
  });

  it("re-running migrations is a no-op", async () => {
    expect(await migrateToLatest(database.db as never, database.schema, migrations)).toEqual([]);
  });

  it("repeats a migration run that met a schema dropped by someone else, but not a real failure", async () => {
    const failing = (code: string, times: number) => {
      let left = times;
      return database.db.withPlugin({
        transformQuery(args) {
          if (left > 0) {
            left--;
            throw Object.assign(new Error(`simulated ${code}`), { code });
          }
          return args.node;
        },
        transformResult: async (args) => args.result,
      });
    };
    expect(await migrateToLatest(failing("3F000", 2) as never, database.schema, migrations)).toEqual([]);
    await expect(migrateToLatest(failing("42601", 1) as never, database.schema, migrations)).rejects.toThrow(
      "simulated 42601",
    );
    await expect(migrateToLatest(failing("3F000", 10) as never, database.schema, migrations)).rejects.toThrow(
      "simulated 3F000",
    );
  });

  it("keeps two test schemas apart", async () => {
    const other = await createTestDatabase<Tables>({ migrations, url: database.url });
    try {
      expect(await other.db.selectFrom("notes").selectAll().execute()).toEqual([]);
    } finally {
      await other.drop();
    }
  });

  it("counts rate-limit hits in a sliding window, exactly, under concurrency", async () => {
    const counter = createPostgresRateLimitCounter(database.db as never);
    const limit = { max: 5, windowSeconds: 60 };
    const decisions = await Promise.all(Array.from({ length: 8 }, () => counter.consume("login:abc", limit)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    const refused = decisions.filter((d) => !d.allowed);
    expect(refused).toHaveLength(3);
    expect(refused[0]?.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect((await counter.consume("login:other", limit)).remaining).toBe(4);
  });

  it("refunds the latest hit of one key only", async () => {
    const counter = createPostgresRateLimitCounter(database.db as never);
    const limit = { max: 2, windowSeconds: 60 };
    await counter.consume("refund:a", limit);
    await counter.consume("refund:b", limit);
    await counter.refund("refund:a");
    await counter.refund("refund:unknown");
    expect((await counter.consume("refund:a", limit)).remaining).toBe(1);
    expect((await counter.consume("refund:b", limit)).remaining).toBe(0);
  });

  it("answers many concurrent parameterised queries and keeps transactions apart", async () => {
    const wide = openDatabase<Tables>({ url: database.url, schema: database.schema, poolMax: 8 });
    try {
      const echoes = await Promise.all(
        Array.from({ length: 40 }, (_, i) => sql<{ n: number }>`SELECT ${i}::int AS n`.execute(wide.db)),
      );
      expect(echoes.map((r) => r.rows[0]?.n)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          wide.db.transaction().execute(async (trx) => {
            await trx
              .insertInto("notes")
              .values({ id: 100 + i, body: `tx ${i}` })
              .execute();
            if (i % 2 === 1) throw new Error("roll back");
          }),
        ),
      );
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(5);
      const ids = await wide.db.selectFrom("notes").select("id").where("id", ">=", 100).orderBy("id").execute();
      expect(ids.map((r) => r.id)).toEqual([100, 102, 104, 106, 108]);
    } finally {
      await wide.close();
    }
  });

  it("accepts a single-use value exactly once, even concurrently, and again after it expires", async () => {
    // The guard's clock, a year from the database's: expiry follows the caller's clock only.
    let now = new Date(Date.now() + 365 * 86_400_000);
    const guard = createReplayGuard(database.db as never, { now: () => now });
    const soon = new Date(now.getTime() + 60_000);
    const results = await Promise.all(Array.from({ length: 6 }, () => guard.consume("dpop-jti", "j1", soon)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await guard.consume("other-namespace", "j1", soon)).toBe(true);
    expect(await guard.consume("dpop-jti", "j2", new Date(now.getTime() - 1000))).toBe(true);
    expect(await guard.consume("dpop-jti", "j2", soon)).toBe(true);
    expect(await guard.consume("dpop-jti", "j2", soon)).toBe(false);
    now = new Date(soon.getTime() + 1);
    expect(await guard.consume("dpop-jti", "j2", new Date(now.getTime() + 60_000))).toBe(true);
  });

  it("lets hits through again once the window has passed", async () => {
    const counter = createPostgresRateLimitCounter(database.db as never);
    const limit = { max: 1, windowSeconds: 1 };
    expect((await counter.consume("w", limit)).allowed).toBe(true);
    expect((await counter.consume("w", limit)).allowed).toBe(false);
    // The window is counted on the database's clock (one clock for every replica): the recorded hit
    // is moved two seconds into the past instead of waiting for it.
    await (database.db as unknown as Kysely<{ rate_limit_hits: { key: string; hit_at: Date; expires_at: Date } }>)
      .updateTable("rate_limit_hits")
      .set({ hit_at: sql`hit_at - interval '2 seconds'`, expires_at: sql`expires_at - interval '2 seconds'` })
      .where("key", "=", "w")
      .execute();
    expect((await counter.consume("w", limit)).allowed).toBe(true);
  });
});
