import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ArgumentKinds, compileOnce, createTestDatabase, type TestDatabase } from "../src/index.js";

interface Tables {
  items: { id: string; owner: string; size: number; seen_at: Date; note: string | null; tags: string };
}

const migrations = {
  "0001_items": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("items")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner", "text", (c) => c.notNull())
        .addColumn("size", "integer", (c) => c.notNull())
        .addColumn("seen_at", "timestamptz", (c) => c.notNull())
        .addColumn("note", "text")
        .addColumn("tags", "jsonb", (c) => c.notNull())
        .execute();
    },
  },
};

interface Item {
  id: string;
  owner: string;
  size: number;
  seenAt: Date;
  note: string | null;
  tags: string;
}
const ITEM: ArgumentKinds<Item> = {
  id: "string",
  owner: "string",
  size: "number",
  seenAt: "Date",
  note: "string | null",
  tags: "string",
};

describe("compileOnce", () => {
  let database: TestDatabase<Tables>;
  let db: Kysely<Tables>;
  beforeAll(async () => {
    database = await createTestDatabase<Tables>({ prefix: "compile_once", migrations });
    db = database.db;
  });
  afterAll(async () => {
    await database.drop();
  });

  const insertItem = () =>
    compileOnce(db, ITEM, (db, item: Item) =>
      db
        .insertInto("items")
        .values({
          id: item.id,
          owner: item.owner,
          size: item.size,
          seen_at: item.seenAt,
          note: item.note,
          tags: sql<string>`${item.tags}::jsonb`,
        })
        .returningAll(),
    );
  const bigOnes = () =>
    compileOnce(db, { owner: "string", atLeast: "number", ids: "number[]" }, (db, args) =>
      db
        .selectFrom("items")
        .select(["id", "size", "note", "tags"])
        .where("owner", "=", args.owner)
        .where("size", ">=", args.atLeast)
        .where("owner", "<>", "nobody") // a constant parameter, kept as is
        .where(sql<boolean>`array_length(${args.ids}::int[], 1) > 0`)
        .orderBy("id")
        .limit(10),
    );

  it("returns what the uncompiled builder returns for the same arguments", async () => {
    const insert = insertItem();
    const seenAt = new Date("2026-01-02T03:04:05.678Z");
    const first: Item = { id: "a", owner: "ada", size: 3, seenAt, note: null, tags: '["x"]' };
    const inserted = await insert.takeFirst(first);
    expect(inserted).toEqual({ id: "a", owner: "ada", size: 3, seen_at: seenAt, note: null, tags: ["x"] });
    const viaBuilder = await insert.builder({ ...first, id: "b", note: "n" }).execute();
    expect(viaBuilder).toEqual([{ ...inserted, id: "b", note: "n" }]);

    const select = compileOnce(db, { owner: "string", atLeast: "number" }, (db, args) =>
      db
        .selectFrom("items")
        .selectAll()
        .where("owner", "=", args.owner)
        .where("size", ">=", args.atLeast)
        .orderBy("id"),
    );
    for (const args of [
      { owner: "ada", atLeast: 3 },
      { owner: "ada", atLeast: 4 },
      { owner: "bob", atLeast: 0 },
    ]) {
      const compiled = await select.execute(args);
      const built = await select.builder(args).execute();
      expect(compiled.rows).toEqual(built);
    }
    expect((await select.execute({ owner: "ada", atLeast: 3 })).rows.map((row) => row.id)).toEqual(["a", "b"]);
  });

  it("fills each parameter from the arguments and keeps the constants, under one SQL text", async () => {
    const statement = bigOnes();
    // Compiled once, schema transform included: the text names the test's schema.
    expect(statement.sql).toMatch(/^select "id", "size", "note", "tags" from "compile_once_[0-9a-f]+"\."items" where/);
    expect(statement.sql.match(/\$\d+/g)).toEqual(["$1", "$2", "$3", "$4", "$5"]);
    await insertItem().execute({ id: "c", owner: "bob", size: 9, seenAt: new Date(), note: null, tags: "{}" });
    for (const args of [
      { owner: "ada", atLeast: 0, ids: [1] },
      { owner: "ada", atLeast: 0, ids: [] },
      { owner: "bob", atLeast: 5, ids: [1, 2] },
      { owner: "nobody", atLeast: 0, ids: [1] },
    ]) {
      expect((await statement.execute(args)).rows).toEqual(await statement.builder(args).execute());
    }
    expect((await statement.execute({ owner: "bob", atLeast: 5, ids: [7] })).rows).toEqual([
      { id: "c", size: 9, note: null, tags: {} },
    ]);
    expect((await statement.execute({ owner: "ada", atLeast: 0, ids: [] })).rows).toEqual([]);
  });

  it("counts the rows of a statement without RETURNING", async () => {
    const touch = compileOnce(db, { id: "string", note: "string | null" }, (db, args) =>
      db.updateTable("items").set({ note: args.note }).where("id", "=", args.id),
    );
    expect((await touch.execute({ id: "a", note: "changed" })).numAffectedRows).toBe(1n);
    expect((await touch.execute({ id: "nope", note: null })).numAffectedRows).toBe(0n);
    expect((await db.selectFrom("items").select("note").where("id", "=", "a").executeTakeFirstOrThrow()).note).toBe(
      "changed",
    );
  });

  it("refuses an argument transformed at build time", () => {
    expect(() =>
      compileOnce(db, { owner: "string" }, (db, args) =>
        db.selectFrom("items").selectAll().where("owner", "=", args.owner.toLowerCase()),
      ),
    ).toThrow(/argument transformed at build time/);
    expect(() =>
      compileOnce(db, { tags: "string" }, (db, args) =>
        db.selectFrom("items").selectAll().where("tags", "=", JSON.stringify(args.tags)),
      ),
    ).toThrow(/argument transformed at build time/);
  });

  it("refuses arithmetic on a number, a derived Date or array, and a missing argument", () => {
    expect(() =>
      compileOnce(db, { size: "number" }, (db, args) =>
        db
          .selectFrom("items")
          .selectAll()
          .where("size", "=", args.size + 1),
      ),
    ).toThrow(/a constant number/);
    expect(() =>
      compileOnce(db, { at: "Date" }, (db, args) =>
        db
          .selectFrom("items")
          .selectAll()
          .where("seen_at", "<", new Date(args.at.getTime() + 1000)),
      ),
    ).toThrow(/a constant Date/);
    expect(() =>
      compileOnce(db, { ids: "number[]" }, (db, args) =>
        db
          .selectFrom("items")
          .selectAll()
          .where(sql<boolean>`size = any(${args.ids.map((id) => id * 2)})`),
      ),
    ).toThrow(/a constant array/);
    expect(() =>
      compileOnce(db, { owner: "string", size: "number" }, (db, args) =>
        db.selectFrom("items").selectAll().where("owner", "=", args.owner),
      ),
    ).toThrow(/argument "size" is missing/);
  });

  it("refuses an argument inlined into the SQL text", () => {
    expect(() =>
      compileOnce(db, { owner: "string" }, (db, args) =>
        db.selectFrom("items").selectAll().where("owner", "=", sql.lit(args.owner)),
      ),
    ).toThrow(/inlined into the SQL text/);
  });
});
