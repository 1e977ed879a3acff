import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../src/index.js";
import { NAMED_STATEMENT_LIMIT, StatementNames, statementNames } from "../src/named-statements.js";
import { storeBackends } from "./support/backends.js";

describe("statement names", () => {
  it("are a hash of the text: the same on every call, different for another text", () => {
    const names = new StatementNames(10);
    const name = names.nameOf("SELECT $1");
    expect(name).toMatch(/^a_[A-Za-z0-9_-]{20}$/);
    expect(new StatementNames(10).nameOf("SELECT $1")).toBe(name);
    expect(names.nameOf("SELECT $2")).not.toBe(name);
  });

  it("are given to the first `limit` texts only", () => {
    const names = new StatementNames(3);
    const given = ["a", "b", "c"].map((text) => names.nameOf(text));
    expect(given.every((name) => name !== undefined)).toBe(true);
    expect(names.nameOf("d")).toBeUndefined();
    expect(names.nameOf("b")).toBe(given[1]);
    expect(names.size).toBe(3);
  });
});

/** On real PostgreSQL (when DATABASE_URL is set) and on the embedded database's wire server. */
const backends = storeBackends();

interface Tables {
  items: { id: number; label: string };
}

/** A schema with two items, on one connection (so the statements it prepared are the session's). */
function itemsDatabase(url: () => Promise<string>) {
  const schema = `named_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  const context = {} as { database: Database<Tables>; db: Kysely<Tables> };
  beforeAll(async () => {
    context.database = openDatabase<Tables>({ url: await url(), schema, poolMax: 1 });
    const { db } = context.database;
    context.db = db;
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, "items")} (id int PRIMARY KEY, label text NOT NULL)`.execute(db);
    await db
      .insertInto("items")
      .values([
        { id: 1, label: "one" },
        { id: 2, label: "two" },
      ])
      .execute();
  });
  afterAll(async () => {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(context.db);
    await context.database.close();
  });
  const prepared = async () =>
    (
      await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements`.execute(
        context.db,
      )
    ).rows;
  return { context, schema, prepared };
}

describe.each(backends)("named statements on $name", (backend) => {
  const { context, schema, prepared } = itemsDatabase(backend.url);

  it("prepares parameterised statements under a name, and leaves parameterless ones unnamed", async () => {
    const { db } = context;
    const query = db.selectFrom("items").select("label").where("id", "=", 2);
    expect(await query.execute()).toEqual([{ label: "two" }]);
    const { sql: text } = query.compile();
    const name = statementNames.nameOf(text);
    expect((await prepared()).filter((row) => row.name === name)).toEqual([{ name, statement: text }]);
    await sql`SELECT count(*) FROM ${sql.id(schema, "items")}`.execute(db);
    expect((await prepared()).some((row) => row.statement.includes("count(*)"))).toBe(false);
  });

  it("parses a named statement's rows with the parsers its previous run on the connection built", async () => {
    const { database } = context;
    const client = await database.pool.connect();
    try {
      const text = `SELECT id, label FROM ${schema}.items WHERE id = $1`;
      const first = await client.query(text, [1]);
      const second = await client.query(text, [2]);
      expect(first.rows).toEqual([{ id: 1, label: "one" }]);
      expect(second.rows).toEqual([{ id: 2, label: "two" }]);
      expect((second as unknown as { _parsers: unknown })._parsers).toBe(
        (first as unknown as { _parsers: unknown })._parsers,
      );
    } finally {
      client.release();
    }
  });

  it("survives a table change under a prepared SELECT *, outside and inside transactions", async () => {
    const { db } = context;
    const byId = (trx: Kysely<Tables> = db) => trx.selectFrom("items").selectAll().where("id", "=", 1).execute();
    const count = (trx: Kysely<Tables> = db) =>
      trx.selectFrom("items").selectAll().where("id", ">", 0).where("label", "<>", "").execute();
    expect(await byId()).toEqual([{ id: 1, label: "one" }]);
    expect(await count()).toHaveLength(2);
    await sql`ALTER TABLE ${sql.id(schema, "items")} ADD COLUMN extra int`.execute(db);
    // outside a transaction: retried unnamed, and unnamed on this connection from then on
    expect(await byId()).toEqual([{ id: 1, label: "one", extra: null }]);
    expect(await byId()).toEqual([{ id: 1, label: "one", extra: null }]);
    // inside one: the error aborted it, so it fails as any error would, and the connection recovers
    await expect(db.transaction().execute((trx) => count(trx))).rejects.toMatchObject({ code: "0A000" });
    expect(await db.transaction().execute((trx) => count(trx))).toHaveLength(2);
    expect(await count()).toHaveLength(2);
  });

  it("prepares a statement again after it was deallocated behind the client's back", async () => {
    const { db } = context;
    const query = db.selectFrom("items").select("label").where("id", "=", 1).where("label", "like", "o%");
    expect(await query.execute()).toEqual([{ label: "one" }]);
    const name = statementNames.nameOf(query.compile().sql) as string;
    await sql.raw(`DEALLOCATE "${name}"`).execute(db);
    expect(await query.execute()).toEqual([{ label: "one" }]); // 26000, retried
    expect(await query.execute()).toEqual([{ label: "one" }]);
    expect((await prepared()).some((row) => row.name === name)).toBe(true);
  });
});

/** After the suites above (the registry is process-wide): it fills up, and what runs beyond it runs unnamed. */
describe.each(backends)("the statement name bound on $name", (backend) => {
  const { context, prepared } = itemsDatabase(backend.url);

  it("names at most NAMED_STATEMENT_LIMIT texts; IN lists of every length run, unnamed beyond it", async () => {
    const { db, database } = context;
    const lengths = NAMED_STATEMENT_LIMIT - statementNames.size + 20;
    const texts: string[] = [];
    for (let n = 1; n <= lengths; n++) {
      const ids = Array.from({ length: n }, (_, i) => i + 1);
      const query = db.selectFrom("items").select("id").where("id", "in", ids).orderBy("id");
      expect((await query.execute()).map((row) => row.id)).toEqual(ids.slice(0, 2));
      texts.push(query.compile().sql);
    }
    expect(statementNames.size).toBe(NAMED_STATEMENT_LIMIT);
    const named = texts.filter((text) => statementNames.nameOf(text) !== undefined);
    expect(named.length).toBeLessThanOrEqual(lengths - 20);
    const preparedHere = (await prepared()).filter((row) => row.statement.includes(" in ("));
    expect(preparedHere.map((row) => row.statement).sort()).toEqual([...named].sort());
    const parsed = (database.pool as unknown as { _clients: { connection: { parsedStatements: object } }[] })
      ._clients[0]?.connection.parsedStatements;
    expect(Object.keys(parsed ?? {}).length).toBeLessThanOrEqual(NAMED_STATEMENT_LIMIT);
  });
});
