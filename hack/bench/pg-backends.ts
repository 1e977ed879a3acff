import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { openDatabase } from "@attesto/store";
import { ownCpuSeconds } from "./proc-stats.js";

/**
 * The PostgreSQL backends serving a set of processes, and the CPU they spend: Attesto's cost per
 * flow includes the database work it causes. A backend is found through its client's socket: the
 * local ports of the processes' TCP connections to the database port (/proc/<pid>/fd and
 * /proc/net/tcp{,6}) are matched against `pg_stat_activity.client_port`, and its CPU is read from
 * /proc/<backend pid>/stat (the database must run on this machine, as the bench's default does).
 * Backends come and go with the pools: each sample picks up new ones, and a backend first seen
 * during a window counts from zero (its start-up is part of serving). Needs read access to the
 * processes' /proc entries (same user or root); where it has none, the figure is reported missing.
 */

/**
 * Local ports of the TCP connections of `pids` whose remote port is `remotePort`. The socket tables
 * are read once per call: a read of /proc/net/tcp costs tens of ms of this process's CPU on some
 * kernels (34 ms on the 2-core VM), and this runs on the load generator's event loop.
 */
function clientPortsOf(pids: number[], remotePort: number): number[] {
  const inodes = new Set<string>();
  for (const pid of pids) {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (link.startsWith("socket:[")) inodes.add(link.slice(8, -1));
      } catch {
        // closed meanwhile
      }
    }
  }
  const ports: number[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || !inodes.has(fields[9]!)) continue;
      const local = fields[1]!;
      const remote = fields[2]!;
      if (Number.parseInt(remote.slice(remote.lastIndexOf(":") + 1), 16) !== remotePort) continue;
      ports.push(Number.parseInt(local.slice(local.lastIndexOf(":") + 1), 16));
    }
  }
  return ports;
}

export interface BackendWindow {
  cpuSeconds: number;
  backends: number;
}

export class PgBackends {
  private readonly database;
  private readonly port: number;
  /** Client port -> backend pid (ports are reused: re-asked when the pid's /proc entry is gone). */
  private readonly backendOfPort = new Map<number, number>();

  constructor(databaseUrl: string) {
    const url = new URL(databaseUrl);
    this.port = Number(url.port || 5432);
    this.database = openDatabase({ url: databaseUrl, schema: "public", poolMax: 1 });
  }

  /** Whether this machine can see the database's backends at all (local database, readable /proc). */
  async available(pids: number[]): Promise<boolean> {
    try {
      return (await this.backendsOf(pids)).length > 0;
    } catch {
      return false;
    }
  }

  /** Pids of the backends currently connected to `pids`. */
  async backendsOf(pids: number[]): Promise<number[]> {
    const ports = clientPortsOf(pids, this.port);
    const unknown = ports.filter((port) => !this.backendOfPort.has(port));
    if (unknown.length > 0) {
      const { rows } = await this.database.pool.query<{ pid: number; client_port: number }>(
        "SELECT pid, client_port FROM pg_stat_activity WHERE client_addr IS NOT NULL AND client_port = ANY($1::int[])",
        [unknown],
      );
      for (const row of rows) this.backendOfPort.set(row.client_port, row.pid);
    }
    return ports.flatMap((port) => {
      const pid = this.backendOfPort.get(port);
      return pid === undefined ? [] : [pid];
    });
  }

  /**
   * CPU of the backends serving `pids` over a window, sampled every `intervalMs`; which backends
   * those are is looked up at the start, at the end and at most every `discoverMs` (the socket
   * tables are costly to read, and the pools' connections stay put under load).
   */
  watch(pids: number[], intervalMs = 200, discoverMs = 2_000) {
    const start = new Map<number, number>();
    const last = new Map<number, number>();
    let first = true;
    let pending = Promise.resolve();
    let known: number[] = [];
    let discoveredAt = 0;
    const sample = (discover = false) => {
      pending = pending.then(async () => {
        let backends: number[];
        try {
          if (discover || Date.now() - discoveredAt >= discoverMs) {
            known = await this.backendsOf(pids);
            discoveredAt = Date.now();
          }
          backends = known;
        } catch {
          return;
        }
        for (const pid of backends) {
          let cpu: number;
          try {
            cpu = ownCpuSeconds(pid);
          } catch {
            this.forget(pid);
            continue;
          }
          if (!start.has(pid)) start.set(pid, first ? cpu : 0);
          last.set(pid, cpu);
        }
        first = false;
      });
      return pending;
    };
    const started = sample(true);
    const timer = setInterval(sample, intervalMs);
    timer.unref();
    return {
      started,
      async stop(): Promise<BackendWindow> {
        clearInterval(timer);
        await sample(true);
        let cpuSeconds = 0;
        for (const [pid, cpu] of last) cpuSeconds += cpu - start.get(pid)!;
        return { cpuSeconds: Math.round(cpuSeconds * 100) / 100, backends: last.size };
      },
    };
  }

  private forget(pid: number) {
    for (const [port, backend] of this.backendOfPort) if (backend === pid) this.backendOfPort.delete(port);
  }

  close() {
    return this.database.close();
  }
}
