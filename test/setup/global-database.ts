import { EMBEDDED_TEST_DATABASE_URL_VAR, type EmbeddedPostgres, startEmbeddedPostgres } from "@attesto/store";

/**
 * Tests run on real PostgreSQL when DATABASE_URL is set (CI sets it). Otherwise one in-memory
 * PGlite server is started for the whole run; each test file still gets its own schema.
 */
let embedded: EmbeddedPostgres | undefined;

export async function setup(): Promise<void> {
  if (process.env.DATABASE_URL) return;
  embedded = await startEmbeddedPostgres();
  process.env[EMBEDDED_TEST_DATABASE_URL_VAR] = embedded.url;
}

export async function teardown(): Promise<void> {
  await embedded?.close();
}
