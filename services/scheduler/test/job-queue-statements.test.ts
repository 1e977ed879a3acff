import { startEmbeddedPostgres } from "@attesto/store";
import pg from "pg";
import { expect, it } from "vitest";
import { PgBossJobQueue } from "../src/jobs/job-queue.js";

/**
 * pg-boss's statements go through the services' pg client (NamingClient), so its parameterised
 * ones are prepared once rather than parsed and planned on every run. On the embedded database
 * every client shares one backend, whose pg_prepared_statements therefore lists them.
 */
it("pg-boss's parameterised statements run as named (prepared) statements", async () => {
  const database = await startEmbeddedPostgres();
  const schema = "jobs_named";
  const queue = new PgBossJobQueue({
    url: database.url,
    schema,
    poolMax: 1,
    pollingIntervalMs: 1_000,
    idlePollingIntervalMs: 10_000,
    superviseIntervalSeconds: 60,
    expireInSeconds: { "anchor-batch": 60, "dispatch-webhook-event": 60, "deliver-webhook": 60 },
    onError: () => {},
  });
  const client = new pg.Client({ connectionString: database.url });
  try {
    await queue.start(); // reads each queue and its jobs by parameter
    await client.connect();
    const { rows } = await client.query<{ statement: string }>(
      "SELECT statement FROM pg_prepared_statements WHERE name LIKE 'a\\_%' AND statement LIKE $1",
      [`%${schema}.%`],
    );
    expect(rows.length).toBeGreaterThan(0);
  } finally {
    await client.end();
    await queue.stop(0);
    await database.close();
  }
}, 60_000);
