import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  cacheInvalidationsFor,
  createCacheTopicTrigger,
  createTestDatabase,
  type DatabaseInvalidations,
  type InvalidationState,
  startCacheInvalidations,
  type TestDatabase,
} from "../src/index.js";
import { storeBackends } from "./support/backends.js";

interface Tables {
  keys: { id: number; revoked: boolean };
}

const TOPIC = `keys-${randomBytes(4).toString("hex")}`;
const migrations = {
  "0001_keys": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("keys")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .addColumn("revoked", "boolean", (c) => c.notNull())
        .execute();
      await createCacheTopicTrigger(db, "keys", TOPIC);
    },
  },
};

/** Resolves when `invalidations` reaches `wanted` (told by its onState; no polling, no sleep). */
function listening(url: string, name: string) {
  const waiters: Array<{ wanted: InvalidationState; resolve: () => void }> = [];
  const invalidations: DatabaseInvalidations = startCacheInvalidations({
    url,
    applicationName: name,
    onState: (state) => {
      for (const waiter of waiters.filter((w) => w.wanted === state)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
  });
  const reach = (wanted: InvalidationState) =>
    invalidations.state === wanted
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.push({ wanted, resolve }));
  return { invalidations, reach };
}

const backends = storeBackends();
const postgres = backends.filter((backend) => backend.name === "PostgreSQL");

describe.runIf(postgres.length > 0)("cache invalidations on PostgreSQL (LISTEN/NOTIFY)", () => {
  let database: TestDatabase<Tables>;
  const opened: DatabaseInvalidations[] = [];
  const replica = async (name: string) => {
    const listener = listening(database.url, `${name}-${randomBytes(4).toString("hex")}`);
    opened.push(listener.invalidations);
    await listener.reach("coherent");
    return listener;
  };
  beforeAll(async () => {
    database = await createTestDatabase<Tables>({ migrations, url: await postgres[0]!.url() });
    await database.db.insertInto("keys").values({ id: 1, revoked: false }).execute();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((invalidations) => invalidations.close()));
  });
  afterAll(async () => {
    await database.drop();
  });

  it("a change committed through one connection has reached another process's subscribers once its barrier resolves (no wait)", async () => {
    const { invalidations } = await replica("other");
    let changes = 0;
    invalidations.subscribe(TOPIC, () => {
      changes += 1;
    });
    // The write goes through the pool (another connection); the barrier is the next thing asked.
    await database.db.updateTable("keys").set({ revoked: true }).where("id", "=", 1).execute();
    expect(await invalidations.barrier()).toBe(true);
    expect(changes).toBe(1);
  });

  it("every one of many changes in a row is seen by the barrier that follows it", async () => {
    const { invalidations } = await replica("many");
    let changes = 0;
    invalidations.subscribe(TOPIC, () => {
      changes += 1;
    });
    for (let round = 1; round <= 20; round += 1) {
      await database.db
        .updateTable("keys")
        .set({ revoked: round % 2 === 0 })
        .where("id", "=", 1)
        .execute();
      expect(await invalidations.barrier()).toBe(true);
      expect(changes).toBe(round);
    }
  });

  it("a rolled back change notifies nobody; other topics' subscribers are not told", async () => {
    const { invalidations } = await replica("rollback");
    let changes = 0;
    let others = 0;
    invalidations.subscribe(TOPIC, () => {
      changes += 1;
    });
    invalidations.subscribe(`${TOPIC}-other`, () => {
      others += 1;
    });
    await database.db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable("keys").set({ revoked: false }).where("id", "=", 1).execute();
        throw new Error("roll back");
      })
      .catch(() => undefined);
    expect(await invalidations.barrier()).toBe(true);
    expect(changes).toBe(0);
    await database.db.updateTable("keys").set({ revoked: false }).where("id", "=", 1).execute();
    expect(await invalidations.barrier()).toBe(true);
    expect([changes, others]).toEqual([1, 0]);
  });

  it("concurrent barriers all see a change committed before them", async () => {
    const { invalidations } = await replica("concurrent");
    let changes = 0;
    invalidations.subscribe(TOPIC, () => {
      changes += 1;
    });
    const first = invalidations.barrier();
    await database.db.updateTable("keys").set({ revoked: true }).where("id", "=", 1).execute();
    // Asked after the commit while `first` may still be in flight: it must wait for a later trip.
    const seen = await Promise.all(
      Array.from({ length: 8 }, async () => {
        await invalidations.barrier();
        return changes;
      }),
    );
    await first;
    expect(seen).toEqual(Array(8).fill(1));
  });

  it("barrier(since): a trip sent after `since` serves it (no round trip of its own); a change committed before `since` is still seen", async () => {
    const { invalidations } = await replica("since");
    let changes = 0;
    invalidations.subscribe(TOPIC, () => {
      changes += 1;
    });
    // Committed before the request began.
    await database.db.updateTable("keys").set({ revoked: true }).where("id", "=", 1).execute();
    const since = performance.now();
    const trips = invalidations.roundTrips;
    expect(await invalidations.barrier(since)).toBe(true);
    expect([changes, invalidations.roundTrips - trips]).toEqual([1, 1]);
    // A later read of the same request (or another request begun before that trip was sent).
    expect(await invalidations.barrier(since)).toBe(true);
    expect(invalidations.roundTrips - trips).toBe(1);
    // Committed after that trip: a barrier asked now (a request begun now) makes a trip of its own and sees it.
    await database.db.updateTable("keys").set({ revoked: false }).where("id", "=", 1).execute();
    expect(await invalidations.barrier()).toBe(true);
    expect([changes, invalidations.roundTrips - trips]).toEqual([2, 2]);
  });

  it("a lost listening connection: no promise until it listens again, then every subscriber is emptied", async () => {
    const name = `lost-${randomBytes(4).toString("hex")}`;
    const listener = listening(database.url, name);
    opened.push(listener.invalidations);
    await listener.reach("coherent");
    let emptied = 0;
    listener.invalidations.subscribe(TOPIC, () => {
      emptied += 1;
    });
    const lost = listener.reach("connecting");
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${name}`.execute(
      database.db,
    );
    await lost;
    expect(await listener.invalidations.barrier()).toBe(false);
    await listener.reach("coherent");
    // Emptied when the connection was lost and again once listening (what was missed is unknown).
    expect(emptied).toBe(2);
    expect(await listener.invalidations.barrier()).toBe(true);
  });

  it("closed: no promise; one listener per process and database, shared until its last user releases it", async () => {
    const first = cacheInvalidationsFor(database.url, { applicationName: "shared" });
    const second = cacheInvalidationsFor(database.url, { applicationName: "shared" });
    expect(second.invalidations).toBe(first.invalidations);
    await first.release();
    expect(first.invalidations.state).not.toBe("closed");
    await second.release();
    expect(first.invalidations.state).toBe("closed");
    expect(await first.invalidations.barrier()).toBe(false);
  });
});

describe("cache invalidations on the embedded PGlite fallback", () => {
  it("are found unsupported by the probe (one shared session): the barrier never promises, caches read through", async () => {
    const pglite = backends.find((backend) => backend.name === "embedded PGlite")!;
    const url = await pglite.url();
    const listener = listening(url, "pglite");
    await listener.reach("unsupported");
    expect(await listener.invalidations.barrier()).toBe(false);
    await listener.invalidations.close();
    // The shared session no longer listens: other clients get no stray notifications.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const stray: string[] = [];
    client.on("notification", (message) => stray.push(message.payload ?? ""));
    await client.query("SELECT pg_notify('attesto_cache', 'after')");
    await client.end();
    expect(stray).toEqual([]);
  });
});
