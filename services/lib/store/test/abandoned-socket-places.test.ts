import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeAbandonedSocketPlaces } from "../src/embedded-socket.js";

/** Dates a folder `ageMs` back (its contents made first: making them touches it). */
function age(dir: string, ageMs: number): string {
  const then = new Date(Date.now() - ageMs);
  utimesSync(dir, then, then);
  return dir;
}

/** A temporary socket folder as socketPlace makes it. */
const place = () => mkdtempSync(join(tmpdir(), "attesto-pg-"));

describe.skipIf(process.platform === "win32")("removeAbandonedSocketPlaces", () => {
  const servers: Server[] = [];
  const made: string[] = [];
  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  it("removes old folders whose socket nobody answers on, keeps live and young ones", async () => {
    const abandoned = place();
    writeFileSync(join(abandoned, ".s.PGSQL.5432.lock"), "");
    age(abandoned, 10 * 60_000);
    const live = place();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(live, ".s.PGSQL.5432"), resolve));
    servers.push(server);
    age(live, 10 * 60_000);
    const young = place();
    made.push(abandoned, live, young);

    expect(await removeAbandonedSocketPlaces()).toBeGreaterThanOrEqual(1);
    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(young)).toBe(true);
  });
});
