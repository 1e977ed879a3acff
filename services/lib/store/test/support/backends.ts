import { afterAll } from "vitest";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "../../src/embedded.js";

/**
 * The back ends a store suite runs on: real PostgreSQL (when DATABASE_URL is set) and the embedded
 * database's wire server, started at first use and closed after the file's tests.
 */
export function storeBackends(): { name: string; url: () => Promise<string> }[] {
  let started: EmbeddedPostgres | undefined;
  afterAll(async () => {
    await started?.close();
  });
  return [
    ...(process.env.DATABASE_URL ? [{ name: "PostgreSQL", url: async () => process.env.DATABASE_URL as string }] : []),
    {
      name: "embedded PGlite",
      url: async () => {
        started ??= await startEmbeddedPostgres();
        return started.url;
      },
    },
  ];
}
