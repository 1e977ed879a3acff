import { randomBytes } from "node:crypto";
import http from "node:http";
import net from "node:net";
import { type BaseConfig, baseConfigShape, loadConfig } from "@attesto/runtime/config";
import { createServiceApp, launchService, type RunningService, type ServiceDefinition } from "@attesto/runtime/service";
import { netAddressOf, openDatabase, testDatabaseUrl } from "@attesto/store";
import { type Kysely, sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { testIdentityEnv } from "../src/testing.js";

/**
 * `GET /ready` of a service launched for real: its database reached through a TCP relay the test
 * can cut, its migrations in a real schema, one peer that is a real HTTP server the test stops and
 * one that never answers. `/health` must stay 200 throughout: it is liveness only.
 */

/** A TCP relay to PostgreSQL (over TCP or its Unix socket): cutting it is a database that went away. */
async function startRelay(target: URL) {
  const sockets = new Set<net.Socket>();
  let open = true;
  const server = net.createServer((client) => {
    if (!open) return client.destroy();
    const upstream = net.connect(netAddressOf(target.toString()));
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      open = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A peer's internal port answering `/health` (or, when `hang`, never answering). */
async function startPeer(options: { hang?: boolean } = {}) {
  const server = http.createServer((req, res) => {
    if (options.hang) return;
    res.writeHead(req.url === "/health" ? 200 : 404).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const MIGRATIONS = {
  "001_things": {
    up: async (db: Kysely<unknown>) => {
      await db.schema
        .createTable("things")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .execute();
    },
  },
};

type ProbeConfig = BaseConfig & { PEER_URL: string; SLOW_PEER_URL?: string };

describe("GET /ready", () => {
  const schema = `ready_${randomBytes(4).toString("hex")}`;
  const databaseUrl = new URL(testDatabaseUrl());
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let peer: Awaited<ReturnType<typeof startPeer>>;
  let running: RunningService;
  let base: string;
  let slowPeer: Awaited<ReturnType<typeof startPeer>> | undefined;

  async function launch(peers: (config: ProbeConfig) => Record<string, string>) {
    const port = await freePort();
    const viaRelay = new URL(databaseUrl);
    viaRelay.hostname = "127.0.0.1";
    viaRelay.port = String(relay.port);
    const config = loadConfig(
      z.object({ ...baseConfigShape({ port, internalPort: 0, databaseSchema: schema }), PEER_URL: z.url() }),
      {
        DATABASE_URL: viaRelay.toString(),
        ...testIdentityEnv("schema-registry"),
        HOST: "127.0.0.1",
        LOG_LEVEL: "silent",
        READINESS_TIMEOUT_MS: "300",
        PEER_URL: peer.url,
      },
    ) as ProbeConfig;
    const definition: ServiceDefinition<ProbeConfig> = {
      name: "readiness-probe",
      version: "0.0.0",
      migrations: MIGRATIONS,
      buildApp: (context) => createServiceApp(context),
      readinessPeers: peers,
    };
    running = await launchService(definition, config);
    base = `http://127.0.0.1:${port}`;
  }

  const ready = async () => {
    const response = await fetch(`${base}/ready`);
    return { status: response.status, body: (await response.json()) as { status: string; checks: object } };
  };
  const health = async () => (await fetch(`${base}/health`)).status;

  beforeAll(async () => {
    relay = await startRelay(databaseUrl);
    peer = await startPeer();
  });
  afterEach(async () => {
    relay.restore();
    await running?.close();
    await slowPeer?.close();
    slowPeer = undefined;
  });
  afterAll(async () => {
    await peer.close();
    await relay.close();
    const database = openDatabase({ url: testDatabaseUrl(), schema });
    await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(database.db);
    await database.close();
  });

  it("is 200 with every check named when the database, the migrations and the peers are there", async () => {
    await launch((config) => ({ directory: config.PEER_URL }));
    expect(await ready()).toEqual({
      status: 200,
      body: { status: "ready", checks: { database: "ok", migrations: "ok", "peer:directory": "ok" } },
    });
  });

  it("is 503 while the database is unreachable, and ready again when it is back; /health stays 200", async () => {
    await launch(() => ({}));
    relay.cut();
    expect(await ready()).toEqual({
      status: 503,
      body: { status: "not_ready", checks: { database: "unavailable", migrations: "unavailable" } },
    });
    expect(await health()).toBe(200);
    relay.restore();
    expect((await ready()).status).toBe(200);
  });

  it("is 503 when a migration this code knows is not recorded in the schema", async () => {
    await launch(() => ({}));
    const database = openDatabase({ url: testDatabaseUrl(), schema });
    try {
      await sql`DELETE FROM ${sql.id(schema, "kysely_migration")} WHERE name = '001_things'`.execute(database.db);
      expect((await ready()).body.checks).toEqual({ database: "ok", migrations: "unavailable" });
      await sql`INSERT INTO ${sql.id(schema, "kysely_migration")} (name, timestamp) VALUES ('001_things', now()::text)`.execute(
        database.db,
      );
      expect((await ready()).status).toBe(200);
    } finally {
      await database.close();
    }
  });

  it("is 503 when a required peer is down or does not answer within the timeout", async () => {
    slowPeer = await startPeer({ hang: true });
    const hanging = slowPeer.url;
    const stopped = await startPeer();
    await stopped.close();
    await launch((config) => ({ directory: config.PEER_URL, slow: hanging, gone: stopped.url }));
    expect(await ready()).toEqual({
      status: 503,
      body: {
        status: "not_ready",
        checks: {
          database: "ok",
          migrations: "ok",
          "peer:directory": "ok",
          "peer:slow": "timeout",
          "peer:gone": "unavailable",
        },
      },
    });
    expect(await health()).toBe(200);
  });
});
