import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { sql } from "kysely";
import pg from "pg";

/** The one channel every cache invalidation is notified on; the payload is the changed topic. */
export const CACHE_CHANNEL = "attesto_cache";
/** Waits before listening again after the connection was lost. */
const RECONNECT_DELAYS_MS = [100, 500, 1_000, 5_000];
/** How long the probe waits for the answer to a bare Sync before barriers fall back to `SELECT 1`. */
const SYNC_PROBE_TIMEOUT_MS = 2_000;

export type InvalidationState = "connecting" | "coherent" | "unsupported" | "closed";

/**
 * A process's view of the cache invalidations committed in one PostgreSQL database (the
 * `CacheInvalidations` of `@attesto/protocol/cache`, by shape).
 */
export interface DatabaseInvalidations {
  /** `since`: a `performance.now()` of this process (default: now); see `startCacheInvalidations`. */
  barrier(since?: number): Promise<boolean>;
  /** Round trips the barriers made so far (tests, metrics). */
  readonly roundTrips: number;
  subscribe(topic: string, onChange: () => void): () => void;
  readonly state: InvalidationState;
  close(): Promise<void>;
}

export interface CacheInvalidationOptions {
  url: string;
  applicationName?: string;
  /** Told when the listener's state changes (logging). */
  onState?: (state: InvalidationState, error?: unknown) => void;
}

/**
 * The barrier's round trip: a bare Sync message, answered by ReadyForQuery alone. PostgreSQL sends
 * the notifications it has been signalled about before that ReadyForQuery, as before any other
 * (postgres.c: a client read processes a pending notify interrupt, and so does the idle
 * ReadyForQuery step), so it is as much a barrier as `SELECT 1`, without a statement: no parse,
 * plan, transaction or row on the server, no result on the client. A `pg` Submittable (the
 * extension point pg-cursor uses); `text` names it for whoever lists a client's round trips.
 */
class SyncRoundTrip implements pg.Submittable {
  readonly text = "Sync (cache barrier)";
  readonly done: Promise<void>;
  private settle: (error?: Error) => void = () => undefined;
  constructor() {
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve());
    });
  }
  submit(connection: pg.Connection): void {
    connection.sync();
  }
  handleReadyForQuery(): void {
    this.settle();
  }
  handleError(error: Error): void {
    this.settle(error);
  }
}

/**
 * Listens for cache invalidations on a dedicated connection (one per process and database:
 * `cacheInvalidationsFor` shares it). The guarantees, each tested in test/cache-invalidations.test.ts:
 *
 * - Changes are notified by the writing transaction (a table's trigger, `createCacheTopicTrigger`),
 *   so only committed changes are notified, and every one is, whoever wrote it.
 * - `barrier()` is one round trip on the listening connection (a bare Sync, `SyncRoundTrip`; `SELECT 1`
 *   where the probe finds a server that does not answer one). PostgreSQL signals every listening
 *   backend before the notifying COMMIT returns, and a backend sends the notifications it was
 *   signalled about before the ReadyForQuery that ends the round trip (postgres.c, before
 *   ReadyForQuery). So once the barrier resolves, every change committed before it was sent has
 *   reached the subscribers: a key revoked through any replica is refused by every replica on the
 *   very next request, with no time window and no wait for asynchronous delivery. Concurrent
 *   barriers share one round trip (a call joins the next trip that starts after it).
 * - `barrier(since)` promises the same for the changes committed before `since` (a
 *   `performance.now()` of this process, earlier than the call: when the request began): a trip
 *   sent after `since` that is in flight or has already completed serves it, so under load most
 *   requests need no round trip of their own. Trips completed on a lost connection serve nothing.
 * - While the connection is down, and after it is back until LISTEN is in place again, `barrier()`
 *   is `false` (callers read the database) and every subscriber is emptied on reconnection, since
 *   notifications sent meanwhile were missed.
 * - A database that does not deliver a notification from another connection before the barrier
 *   (PGlite, which serves every client from one session; a transaction-pooling proxy) is found by a
 *   probe on every connection: the state is `unsupported`, the barrier always `false`, the caches
 *   read through.
 */
export function startCacheInvalidations(options: CacheInvalidationOptions): DatabaseInvalidations {
  const subscribers = new Map<string, Set<() => void>>();
  let state: InvalidationState = "connecting";
  let client: pg.Client | undefined;
  let inFlight: { trip: Promise<boolean>; sentAt: number } | undefined;
  let queued: Promise<boolean> | undefined;
  /** When the latest trip that completed on the current connection was sent (`performance.now()`). */
  let seenSince = Number.NEGATIVE_INFINITY;
  let roundTrips = 0;
  let attempt = 0;
  let retry: NodeJS.Timeout | undefined;
  /** The barrier's round trip: a bare Sync, unless the probe found the server does not answer one. */
  let barrierBy: "sync" | "select" = "sync";

  const setState = (next: InvalidationState, error?: unknown) => {
    if (state === next) return;
    state = next;
    options.onState?.(next, error);
  };
  const emptyAll = () => {
    for (const callbacks of subscribers.values()) for (const callback of callbacks) callback();
  };
  const notify = (topic: string) => {
    for (const callback of subscribers.get(topic) ?? []) callback();
  };

  const roundTrip = async (on: pg.Client): Promise<boolean> => {
    try {
      if (barrierBy === "sync") await on.query(new SyncRoundTrip()).done;
      else await on.query("SELECT 1");
      return client === on && state === "coherent";
    } catch {
      return false;
    }
  };
  const startTrip = (on: pg.Client): Promise<boolean> => {
    // Taken before the message is written: the trip left at or after this moment.
    const sentAt = performance.now();
    roundTrips += 1;
    const trip = roundTrip(on).then((coherent) => {
      if (coherent && client === on && sentAt > seenSince) seenSince = sentAt;
      return coherent;
    });
    const entry = { trip, sentAt };
    inFlight = entry;
    void trip.finally(() => {
      if (inFlight === entry) inFlight = undefined;
    });
    return trip;
  };

  const lost = (on: pg.Client, error?: unknown) => {
    if (client !== on) return;
    client = undefined;
    seenSince = Number.NEGATIVE_INFINITY;
    on.removeAllListeners("notification");
    void on.end().catch(() => undefined);
    if (state === "closed") return;
    setState("connecting", error);
    emptyAll();
    const delay = RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)];
    attempt += 1;
    retry = setTimeout(connect, delay);
    retry.unref();
  };

  /** A notification from another connection, then a barrier: is it there? */
  const probe = async (on: pg.Client): Promise<boolean> => {
    const token = `probe:${randomUUID()}`;
    let seen = false;
    const onProbe = (message: pg.Notification) => {
      if (message.payload === token) seen = true;
    };
    on.on("notification", onProbe);
    const other = new pg.Client({ connectionString: options.url, application_name: options.applicationName });
    try {
      await other.connect();
      await other.query("SELECT pg_notify($1, $2)", [CACHE_CHANNEL, token]);
    } finally {
      await other.end().catch(() => undefined);
    }
    await on.query("SELECT 1");
    on.off("notification", onProbe);
    if (seen && barrierBy === "sync") await answersSync(on);
    return seen;
  };
  /**
   * A server that delivers notifications may still not answer a bare Sync (a proxy): the barrier
   * then stays `SELECT 1`. The connection is dropped (its Sync is unanswered) and opened again.
   */
  const answersSync = async (on: pg.Client) => {
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      on.query(new SyncRoundTrip()).done.then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), SYNC_PROBE_TIMEOUT_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    if (answered) return;
    barrierBy = "select";
    throw new Error("the database does not answer a bare Sync: cache barriers use SELECT 1");
  };

  const connect = async () => {
    retry = undefined;
    if (state === "closed") return;
    const on = new pg.Client({ connectionString: options.url, application_name: options.applicationName });
    on.on("error", (error) => lost(on, error));
    on.on("end", () => lost(on));
    client = on;
    try {
      await on.connect();
      on.on("notification", (message) => {
        if (message.channel === CACHE_CHANNEL && message.payload) notify(message.payload);
      });
      await on.query(`LISTEN ${CACHE_CHANNEL}`);
      if (!(await probe(on))) {
        // Notifications in a shared session would reach whichever client's turn it is: stop listening.
        await on.query(`UNLISTEN ${CACHE_CHANNEL}`).catch(() => undefined);
        client = undefined;
        on.removeAllListeners();
        on.on("error", () => undefined);
        await on.end().catch(() => undefined);
        if ((state as InvalidationState) !== "closed") setState("unsupported");
        return;
      }
      if (client !== on || (state as InvalidationState) === "closed") return;
      attempt = 0;
      // Whatever was cached before (or while) the listener was down may be stale.
      emptyAll();
      setState("coherent");
    } catch (error) {
      lost(on, error);
    }
  };
  void connect();

  return {
    get state() {
      return state;
    },
    get roundTrips() {
      return roundTrips;
    },
    barrier(since = performance.now()) {
      const on = client;
      if (state !== "coherent" || !on) return Promise.resolve(false);
      // A trip sent after `since` has completed: what was committed before `since` has been passed on.
      if (seenSince > since) return Promise.resolve(true);
      if (!inFlight) return startTrip(on);
      if (inFlight.sentAt > since) return inFlight.trip;
      // A trip already sent may have left before `since`: join the next one.
      if (!queued) {
        const next = inFlight.trip.then(() => {
          if (queued === next) queued = undefined;
          const current = client;
          return state === "coherent" && current ? startTrip(current) : false;
        });
        queued = next;
      }
      return queued;
    },
    subscribe(topic, onChange) {
      let callbacks = subscribers.get(topic);
      if (!callbacks) {
        callbacks = new Set();
        subscribers.set(topic, callbacks);
      }
      callbacks.add(onChange);
      return () => {
        callbacks.delete(onChange);
      };
    },
    async close() {
      if (state === "closed") return;
      setState("closed");
      if (retry) clearTimeout(retry);
      const on = client;
      client = undefined;
      if (on) {
        on.removeAllListeners();
        on.on("error", () => undefined);
        await on.end().catch(() => undefined);
      }
    },
  };
}

/**
 * For a migration: every statement that changes `table` (in the schema `db` is bound to) notifies
 * `topic` when its transaction commits. A statement-level trigger, so writes made outside the
 * service (an operator's SQL) are notified too; tables given one are written rarely.
 */
export async function createCacheTopicTrigger(db: Kysely<unknown>, table: string, topic: string): Promise<void> {
  const schema = schemaOf(db, table);
  const fn = sql.id(schema, "notify_cache_topic");
  await sql`CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('${sql.raw(CACHE_CHANNEL)}', TG_ARGV[0]);
  RETURN NULL;
END $$`.execute(db);
  await sql`CREATE TRIGGER ${sql.id(`${table}_notify_cache`)}
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${sql.id(schema, table)}
  FOR EACH STATEMENT EXECUTE FUNCTION ${fn}(${sql.lit(topic)})`.execute(db);
}

/** The schema a kysely bound with `withSchema` qualifies `table` with. */
function schemaOf(db: Kysely<unknown>, table: string): string {
  const compiled = (db as Kysely<Record<string, object>>).selectFrom(table).selectAll().compile().sql;
  const schema = /from "([^"]+)"\./.exec(compiled)?.[1];
  if (!schema) throw new Error(`createCacheTopicTrigger needs a kysely bound to a schema (got: ${compiled})`);
  return schema;
}

const shared = new Map<string, { invalidations: DatabaseInvalidations; users: number }>();

/**
 * The process's one listener for `url`, shared by every service of the process (the all-in-one
 * runs eight on one database); `release` closes it when its last user is done.
 */
export function cacheInvalidationsFor(
  url: string,
  options: Omit<CacheInvalidationOptions, "url"> = {},
): { invalidations: DatabaseInvalidations; release(): Promise<void> } {
  let entry = shared.get(url);
  if (!entry) {
    entry = { invalidations: startCacheInvalidations({ url, ...options }), users: 0 };
    shared.set(url, entry);
  }
  entry.users += 1;
  const held = entry;
  let released = false;
  return {
    invalidations: held.invalidations,
    async release() {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users > 0) return;
      if (shared.get(url) === held) shared.delete(url);
      await held.invalidations.close();
    },
  };
}
