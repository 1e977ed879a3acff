import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "../src/index.js";
import { errorCodeOf, RawClient, typesOf, valuesOf, wire } from "./support/raw-wire.js";

/**
 * The embedded database's wire server shares named prepared statements between its clients, who
 * all use PGlite's one backend (see pglite-shared-statements.ts).
 */
describe("named statements on the embedded database's wire server", () => {
  let embedded: EmbeddedPostgres;
  let admin: pg.Client;
  const clients: pg.Client[] = [];
  const raws: RawClient[] = [];
  const client = async () => {
    const c = new pg.Client({ connectionString: embedded.url });
    await c.connect();
    clients.push(c);
    return c;
  };
  const raw = async () => {
    const c = await RawClient.connect(embedded.url);
    raws.push(c);
    return c;
  };
  const preparedCount = async (name: string) =>
    Number((await admin.query("SELECT count(*) AS n FROM pg_prepared_statements WHERE name = $1", [name])).rows[0]?.n);

  beforeAll(async () => {
    embedded = await startEmbeddedPostgres();
    admin = new pg.Client({ connectionString: embedded.url });
    await admin.connect();
    await admin.query("CREATE TABLE shared_notes (id int PRIMARY KEY, body text)");
    await admin.query("INSERT INTO shared_notes VALUES (1, 'one'), (2, 'two')");
  });
  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => {});
    for (const c of raws) await c.close().catch(() => {});
    await admin.end();
    await embedded.close();
  });

  it("lets two clients prepare the same named statement, which the backend holds once", async () => {
    const [a, b] = [await client(), await client()];
    const query = { name: "by_id", text: "SELECT body FROM shared_notes WHERE id = $1" };
    expect((await a.query({ ...query, values: [1] })).rows).toEqual([{ body: "one" }]);
    expect((await b.query({ ...query, values: [2] })).rows).toEqual([{ body: "two" }]);
    expect((await a.query({ ...query, values: [2] })).rows).toEqual([{ body: "two" }]);
    expect((await b.query({ ...query, values: [1] })).rows).toEqual([{ body: "one" }]);
    expect(await preparedCount("by_id")).toBe(1);
  });

  it("records no statement whose Parse failed, so the name can be prepared afterwards", async () => {
    const [a, b] = [await client(), await client()];
    await expect(a.query({ name: "retried", text: "SELEC $1", values: [1] })).rejects.toMatchObject({
      code: "42601",
    });
    expect(await preparedCount("retried")).toBe(0);
    const valid = { name: "retried", text: "SELECT $1::int + 1 AS n" };
    expect((await b.query({ ...valid, values: [1] })).rows).toEqual([{ n: 2 }]);
    expect((await a.query({ ...valid, values: [2] })).rows).toEqual([{ n: 3 }]);
    expect(await preparedCount("retried")).toBe(1);
  });

  it("shares statements prepared inside transactions, committed or rolled back", async () => {
    const [a, b] = [await client(), await client()];
    const query = { name: "in_tx", text: "SELECT count(*)::int AS n FROM shared_notes WHERE id >= $1" };
    await a.query("BEGIN");
    await a.query("INSERT INTO shared_notes VALUES (10, 'ten')");
    expect((await a.query({ ...query, values: [10] })).rows).toEqual([{ n: 1 }]);
    await a.query("ROLLBACK");
    await b.query("BEGIN");
    expect((await b.query({ ...query, values: [10] })).rows).toEqual([{ n: 0 }]);
    await b.query("INSERT INTO shared_notes VALUES (11, 'eleven')");
    expect((await b.query({ ...query, values: [10] })).rows).toEqual([{ n: 1 }]);
    await b.query("COMMIT");
    expect((await a.query({ ...query, values: [10] })).rows).toEqual([{ n: 1 }]);
    expect(await preparedCount("in_tx")).toBe(1);
  });

  it("binds a name another client prepared", async () => {
    const [a, b] = [await raw(), await raw()];
    const text = "SELECT body FROM shared_notes WHERE id = $1";
    expect(typesOf(await a.send(wire.parse("bound", text), wire.sync()))).toBe("1");
    const replies = await b.send(wire.bind("bound", ["2"]), wire.execute(), wire.sync());
    expect(typesOf(replies)).toBe("2DC");
    expect(valuesOf(replies)).toEqual(["two"]);
  });

  it("answers a repeated Parse itself only when text and parameter types match", async () => {
    const [a, b] = [await raw(), await raw()];
    const text = "SELECT $1 AS v";
    const INT4 = 23;
    const TEXT = 25;
    expect(typesOf(await a.send(wire.parse("typed", text, [INT4]), wire.sync()))).toBe("1");
    const same = await b.send(
      wire.parse("typed", text, [INT4]),
      wire.bind("typed", ["007"]),
      wire.execute(),
      wire.sync(),
    );
    expect(typesOf(same)).toBe("12DC");
    expect(valuesOf(same)).toEqual(["7"]); // int4: the backend's statement, not a text one
    const other = await b.send(wire.parse("typed", text, [TEXT]), wire.sync());
    expect(errorCodeOf(other)).toBe("42P05");
    expect(await preparedCount("typed")).toBe(1);
  });

  it("runs a Parse of a prepared name after other messages of a batch as the unnamed statement", async () => {
    const [a, b] = [await raw(), await raw()];
    const text = "SELECT body FROM shared_notes WHERE id = $1";
    expect(typesOf(await a.send(wire.parse("later", text), wire.sync()))).toBe("1");
    const replies = await b.send(
      wire.parse("first", "SELECT $1::int * 2 AS n"),
      wire.parse("later", text),
      wire.bind("later", ["1"]),
      wire.execute(),
      wire.bind("first", ["21"]),
      wire.execute(),
      wire.sync(),
    );
    expect(typesOf(replies)).toBe("112DC2DC");
    expect(valuesOf(replies)).toEqual(["one", "42"]);
    expect(await preparedCount("later")).toBe(1);
    expect(await preparedCount("first")).toBe(1);
  });

  it("keeps a statement other clients hold when one client closes it, and frees it with its last holder", async () => {
    const [a, b] = [await raw(), await raw()];
    const text = "SELECT body FROM shared_notes WHERE id = $1";
    await a.send(wire.parse("closed", text), wire.sync());
    expect(typesOf(await b.send(wire.parse("closed", text), wire.sync()))).toBe("1");
    expect(typesOf(await b.send(wire.closeStatement("closed"), wire.sync()))).toBe("3");
    const replies = await a.send(wire.bind("closed", ["1"]), wire.execute(), wire.sync());
    expect(valuesOf(replies)).toEqual(["one"]);
    expect(await preparedCount("closed")).toBe(1);
    await a.close();
    await vi.waitFor(async () => expect(await preparedCount("closed")).toBe(0));
  });

  it("forgets statements a client deallocates, so the name can be prepared again", async () => {
    const [a, b] = [await client(), await client()];
    const query = { name: "dropped", text: "SELECT body FROM shared_notes WHERE id = $1" };
    await a.query({ ...query, values: [1] });
    await b.query('DEALLOCATE "dropped"');
    expect(await preparedCount("dropped")).toBe(0);
    const c = await client();
    expect((await c.query({ ...query, values: [2] })).rows).toEqual([{ body: "two" }]);
    expect(await preparedCount("dropped")).toBe(1);
  });
});
