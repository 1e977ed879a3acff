import { createHash } from "node:crypto";
import pg from "pg";
import { type PgResult, type RowShape, reuseRowShape } from "./row-shapes.js";

/**
 * Server-side prepared statements for every parameterised query of the process.
 *
 * A statement sent with a `name` is parsed and planned once per connection; later runs send only
 * Bind/Execute (on PostgreSQL 15, backend CPU per simple indexed read drops from ~110 to ~41 µs).
 * The name is a hash of the text, so the same text gets the same name on every connection (the
 * embedded database's wire server relies on that to share one backend's statements between its
 * clients). Parameterless statements (BEGIN/COMMIT, DDL, migrations' SQL) stay unnamed.
 *
 * Bounded: the first `limit` distinct texts of the process get names; any text after that runs
 * unnamed, so statements whose text varies (IN lists of varying length) cannot grow the registry,
 * the pg client's per-connection cache or the backend's prepared statements without bound.
 * A connection pooler between the services and PostgreSQL must keep protocol-level prepared
 * statements per client (PgBouncer in transaction mode: 1.21 or later, `max_prepared_statements`).
 */
export const NAMED_STATEMENT_LIMIT = 1000;

export class StatementNames {
  private readonly names = new Map<string, string>();

  constructor(readonly limit: number = NAMED_STATEMENT_LIMIT) {}

  /** The name of `text`, or undefined when the registry is full and `text` is not in it. */
  nameOf(text: string): string | undefined {
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= this.limit) return known;
    const name = `a_${createHash("sha1").update(text).digest("base64url").slice(0, 20)}`;
    this.names.set(text, name);
    return name;
  }

  get size(): number {
    return this.names.size;
  }
}

/** The process-wide registry every pool's connections draw names from. */
export const statementNames = new StatementNames();

/**
 * A prepared statement the backend no longer runs as prepared: `0A000` (cached plan must not
 * change result type: a `SELECT *` whose table gained a column) or `26000` (prepared statement
 * does not exist: it was deallocated behind the client's back).
 */
const STALE_STATEMENT = new Set(["0A000", "26000"]);
const TRANSACTION_ABORTED = "25P02";
const codeOf = (error: unknown) => String((error as { code?: unknown } | undefined)?.code ?? "");

/** pg's per-connection record of the statement names it has parsed (not in its public types). */
interface ParsedStatements {
  connection: { parsedStatements: Record<string, string> };
}

type Callback = (error: Error | null, result?: unknown) => void;

/**
 * pg's Client with `query(text, values)` sent as a named statement when there is at least one
 * value (the pool hands these out, so kysely and `pool.query` both use it).
 *
 * A stale statement (see STALE_STATEMENT) never wedges a connection: the client forgets that it
 * parsed it, and a `0A000` name is retired on this connection (the backend keeps the stale plan
 * under that name, so a new Parse of it would fail), which then runs that text unnamed. The query
 * is retried once unnamed; inside a transaction the first error has already aborted it, so the
 * retry fails with 25P02 and the original error is thrown (the transaction fails as any other
 * error would make it fail; the connection is fine afterwards).
 */
export class NamingClient extends pg.Client {
  private readonly retired = new Set<string>();
  /** The row shape of each named statement's latest run on this connection (`reuseRowShape`). */
  private readonly shapes = new Map<string, RowShape>();

  // biome-ignore lint/suspicious/noExplicitAny: overrides pg's overloaded query(), whose result type depends on the arguments
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === "string" && Array.isArray(values) && values.length > 0) {
      const name = statementNames.nameOf(config);
      if (name !== undefined && !this.retired.has(name)) {
        const result = this.queryNamed(name, config, values);
        if (typeof callback !== "function") return result;
        result.then(
          (value) => (callback as Callback)(null, value),
          (error: Error) => (callback as Callback)(error),
        );
        return undefined;
      }
    }
    return super.query(config, values, callback);
  }

  /**
   * One named run: a `pg.Query` made from the text, named, and submitted as pg's own query object.
   * Given a config object instead, pg copies it per query through its property descriptors
   * (`cloneQueryConfig`) and adds a promise and a catch handler: ~1 % of the all-in-one's CPU.
   */
  private runNamed(name: string, text: string, values: unknown[]): Promise<pg.QueryResult> {
    return new Promise((resolve, reject) => {
      const query = new pg.Query(text, values, (error, result) =>
        error ? reject(error) : resolve(result as unknown as pg.QueryResult),
      );
      (query as unknown as { name: string }).name = name;
      reuseRowShape((query as unknown as { _result: PgResult })._result, this.shapes, name);
      super.query(query);
    });
  }

  private async queryNamed(name: string, text: string, values: unknown[]): Promise<pg.QueryResult> {
    try {
      return await this.runNamed(name, text, values);
    } catch (error) {
      // As pg does for its own promise: a stack that leads back to the caller, not to the socket's read.
      if (error instanceof Error) Error.captureStackTrace(error);
      const code = codeOf(error);
      if (!STALE_STATEMENT.has(code)) throw error;
      delete (this as unknown as ParsedStatements).connection.parsedStatements[name];
      if (code === "0A000") this.retired.add(name);
      try {
        return await super.query(text, values);
      } catch (retryError) {
        throw codeOf(retryError) === TRANSACTION_ABORTED ? error : retryError;
      }
    }
  }
}
