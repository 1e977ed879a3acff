import { createServer } from "node:net";
import { type App, createApp } from "@attesto/runtime/http";

/** A port nobody listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** A bare Fastify app with the runtime's defaults (form bodies, errors), for the parties tests host. */
export function createDoubleApp(service: string): Promise<App> {
  return createApp({
    service,
    version: "0.0.0",
    config: {
      LOG_LEVEL: "silent",
      BODY_LIMIT_BYTES: 1024 * 1024,
      REQUEST_TIMEOUT_MS: 10_000,
      CORS_ORIGINS: "*",
      TRUST_PROXY: false,
    },
  });
}

/** Listens at a free port (on every address of `host`); answers the base URL. */
export async function listen(app: App, host = "127.0.0.1"): Promise<string> {
  await app.listen({ host, port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return `http://${host}:${port}`;
}
