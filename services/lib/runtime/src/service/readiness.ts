import { type Migrations, missingMigrations, pingDatabase } from "@attesto/store";
import type { Kysely } from "kysely";
import pino, { type LevelWithSilent } from "pino";
import { z } from "zod";
import type { App } from "../http/create-app.js";

/**
 * `GET /ready`: whether this replica can serve now. Kubernetes' readiness probe (the chart's) takes
 * a replica out of its Service while a check fails; `/health` stays liveness only (the process
 * answers), so a lost database or peer never restarts a pod, it only stops traffic to it.
 */
export interface ReadinessCheck {
  /** Shown in the answer, e.g. `database`, `peer:trust-registry`. */
  name: string;
  /** Resolves when fine; rejects (or outlives the timeout) when not. */
  run(signal: AbortSignal): Promise<void>;
}

export interface ReadinessReport {
  ready: boolean;
  /** Per check: `ok`, or a short reason without details (the answer is public; the log has them). */
  checks: Record<string, string>;
}

class NotReady extends Error {}

/** PostgreSQL answers a query. */
export const databaseCheck = (db: Kysely<unknown>): ReadinessCheck => ({
  name: "database",
  run: () => pingDatabase(db),
});

/** Every migration this code knows is recorded in the schema (a newer replica may not have run yet). */
export const migrationsCheck = (db: Kysely<unknown>, schema: string, migrations: Migrations): ReadinessCheck => ({
  name: "migrations",
  async run() {
    const missing = await missingMigrations(db, schema, migrations);
    if (missing.length > 0) throw new NotReady(`not applied: ${missing.join(", ")}`);
  },
});

/** A peer this service cannot work without answers `/health` on its internal port. */
export const peerCheck = (peer: string, internalUrl: string): ReadinessCheck => ({
  name: `peer:${peer}`,
  async run(signal) {
    const response = await fetch(`${internalUrl.replace(/\/+$/, "")}/health`, { signal });
    await response.body?.cancel();
    if (response.status !== 200) throw new NotReady(`HTTP ${response.status}`);
  },
});

function withTimeout(check: ReadinessCheck, timeoutMs: number): Promise<void> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new NotReady(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  return Promise.race([check.run(controller.signal), timeout]).finally(() => clearTimeout(timer));
}

/** Runs every check at once, each under `timeoutMs`. */
export async function checkReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs: number,
  onFailure: (check: string, error: unknown) => void = () => {},
): Promise<ReadinessReport> {
  const outcomes = await Promise.allSettled(checks.map((check) => withTimeout(check, timeoutMs)));
  const report: ReadinessReport = { ready: true, checks: {} };
  outcomes.forEach((outcome, index) => {
    const name = checks[index]!.name;
    if (outcome.status === "fulfilled") {
      report.checks[name] = "ok";
      return;
    }
    report.ready = false;
    const error = outcome.reason;
    report.checks[name] =
      error instanceof NotReady && error.message.startsWith("no answer") ? "timeout" : "unavailable";
    onFailure(name, error);
  });
  return report;
}

/** Adds `GET /ready` (200 when every check passes, else 503) to a service's public app. */
export function registerReadinessRoute(app: App, checks: readonly ReadinessCheck[], timeoutMs: number): void {
  // Probes every few seconds: no per-request info lines, but never louder than the service's level.
  const level = app.log.level as LevelWithSilent;
  const quieter = level === "silent" || pino.levels.values[level]! > pino.levels.values.warn!;
  const zReadiness = z.object({
    status: z.enum(["ready", "not_ready"]),
    checks: z.record(z.string(), z.string()),
  });
  const schema = {
    summary: "Readiness: database, migrations and required peers answer",
    response: { 200: zReadiness, 503: zReadiness },
  };
  app.get("/ready", { logLevel: quieter ? level : "warn", schema }, async (request, reply) => {
    const report = await checkReadiness(checks, timeoutMs, (check, error) =>
      request.log.warn({ check, err: error }, "readiness check failed"),
    );
    return reply
      .code(report.ready ? 200 : 503)
      .header("cache-control", "no-store")
      .send({ status: report.ready ? "ready" : "not_ready", checks: report.checks });
  });
}
