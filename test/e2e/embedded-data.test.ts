/**
 * The embedded database at rest, against a real `npm start` entry point (a child process) on native
 * PostgreSQL: the data folder is private after a fresh start under a permissive umask and again
 * after a restart that found loosened modes (and says so); `attesto backup` taken while the platform
 * runs, the folder wiped, `attesto restore` and a restart bring back an issued credential and its
 * status change; autovacuum is on. Ports: the default ports (root README, "Services and ports") + 10100.
 */
import { execFile } from "node:child_process";
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InteropPlatform, ServiceName } from "../interop/support/platform.js";
import { applyTenant, createOffer, type Tenant } from "../interop/support/tenant.js";
import { InteropWallet, receiveCredential } from "../interop/support/wallet.js";
import { type LauncherProcess, repoRoot, startLauncher } from "./support/launcher.js";

const PORT_OFFSET = 10_100;
const run = promisify(execFile);

/** Every path under `dir` (itself included) whose mode grants anything to group or others. */
function sharedEntries(dir: string): string[] {
  const found: string[] = [];
  const visit = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0) found.push(`${path} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
  };
  visit(dir);
  return found;
}

describe("embedded database at rest: private, maintained, backed up and restored", { timeout: 240_000 }, () => {
  // Reachable by the account PostgreSQL runs as when the suite runs as root (mkdtemp makes 0700).
  const root = mkdtempSync(join(tmpdir(), "attesto-embedded-data-"));
  chmodSync(root, 0o755);
  const dataDir = join(root, ".attesto");
  const backupFile = join(root, "backup.tar.gz");
  let launcher: LauncherProcess | undefined;
  let tenant: Tenant;
  let credentialId = "";
  let offerId = "";

  const env: NodeJS.ProcessEnv = { ...process.env, PORT_OFFSET: String(PORT_OFFSET), ATTESTO_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  delete env.EMBEDDED_DATABASE_ENGINE;
  delete env.SERVICE_IDENTITY_PUBLIC_KEYS;
  env.LOG_LEVEL = "info";

  /** Starts the launcher under a umask that would leave new files world-readable. */
  async function start() {
    const previous = process.umask(0);
    try {
      launcher = await startLauncher({ env, readyTimeoutMs: 200_000 });
    } finally {
      process.umask(previous);
    }
    return launcher;
  }

  const platform: InteropPlatform = {
    url(service: ServiceName) {
      const file = JSON.parse(readFileSync(join(dataDir, "platform.json"), "utf8")) as {
        services: Record<string, { publicUrl: string }>;
      };
      return file.services[service]!.publicUrl;
    },
    internalUrl: () => {
      throw new Error("not used");
    },
    trustAnchors: async () => [],
    close: async () => {},
  };

  const attesto = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [join(repoRoot, "cli/bin/attesto.js"), ...args], {
        cwd: root,
        env: { ...env },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  /** The tenant's credentials of the offer, as the issuer lists them. */
  const issuedOfOffer = async () => {
    const response = await fetch(`${platform.url("credential-issuer")}/v1/credentials?offer_id=${offerId}`, {
      headers: { "x-api-key": tenant.apiKey },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { credentials: Array<{ id: string; status: string }> }).credentials;
  };

  beforeAll(async () => {
    await start();
  }, 240_000);

  afterAll(async () => {
    await launcher?.stop("SIGTERM", 30_000).catch(() => {});
    rmSync(root, { recursive: true, force: true });
  });

  it("a fresh start runs native PostgreSQL, autovacuum on, and leaves nothing group or world accessible", async () => {
    expect(launcher!.output()).toContain("database: embedded native PostgreSQL at");
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(sharedEntries(dataDir)).toEqual([]);
    const client = new pg.Client({ connectionString: launcher!.embeddedDatabaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT current_setting('autovacuum') AS autovacuum, current_setting('fsync') AS fsync, " +
          "(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum launcher')::int AS launchers",
      );
      expect(rows).toEqual([{ autovacuum: "on", fsync: "on", launchers: 1 }]);
    } finally {
      await client.end();
    }
  });

  it("backs up a running platform; a wiped folder restored serves the credential and its status change", async () => {
    tenant = await applyTenant(platform, "backup");
    const wallet = new InteropWallet();
    const offer = await createOffer(platform, tenant);
    await receiveCredential(wallet, offer.deep_link, {
      dpop: true,
      proofKey: wallet.key("ES256"),
      proofKeyReference: "jwk",
    });
    offerId = offer.offer_id;
    credentialId = (await issuedOfOffer())[0]!.id;
    const revoked = await fetch(`${platform.url("credential-issuer")}/v1/credentials/${credentialId}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
      body: JSON.stringify({ status: "revoked" }),
    });
    expect(revoked.status).toBe(200);

    const backup = await attesto("backup", backupFile);
    expect(backup, backup.stderr).toMatchObject({ code: 0 });
    expect(backup.stdout).toContain("online, from the running server");
    expect(statSync(backupFile).mode & 0o777).toBe(0o600);

    // A restore refuses a running platform's folder and never overwrites.
    expect((await attesto("restore", backupFile)).code).toBe(1);
    await launcher!.stop("SIGTERM", 30_000);
    expect((await attesto("restore", backupFile)).stderr).toContain("move the data folder away first");

    rmSync(dataDir, { recursive: true, force: true });
    const restored = await attesto("restore", backupFile);
    expect(restored, restored.stderr).toMatchObject({ code: 0 });
    expect(sharedEntries(dataDir)).toEqual([]);

    // Loosened modes (a careless copy, a template): the next start tightens them and says so.
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, "secrets.json"), 0o644);
    chmodSync(join(dataDir, "postgres", "postgresql.conf"), 0o666);
    await start();
    expect(launcher!.output()).toMatch(/tightened the modes of \d+ files and folders under/);
    expect(sharedEntries(dataDir)).toEqual([]);

    expect(await issuedOfOffer()).toEqual([expect.objectContaining({ id: credentialId, status: "revoked" })]);
  });
});
