import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  startTestAuthServer,
  type TestAuthServer,
  type TestAuthServerOptions,
} from "../../../services/auth-server/test/support/test-auth-server.js";

/** A free TCP port on 127.0.0.1 (the servers' public URLs must be known before they are built). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ListeningAuthServer extends TestAuthServer {
  /** Its public URL, which is also where it listens: http://127.0.0.1:<port>. */
  url: string;
}

/**
 * The auth server (GrantService double, in-memory issuer metadata) on a real port; its PUBLIC_URL is
 * that address, so the browser, `iss` and every DPoP `htu` agree.
 */
export async function startListeningAuthServer(options: TestAuthServerOptions = {}): Promise<ListeningAuthServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = await startTestAuthServer({ ...options, publicUrl: url });
  await server.app.listen({ port, host: "127.0.0.1" });
  return { ...server, url };
}

/** The wallet's redirect target: records every request and answers a small page. */
export interface WalletCallback {
  /** The redirect_uri to register at PAR. */
  redirectUri: string;
  /** Full URLs the browser arrived with, in order. */
  received: URL[];
  close(): Promise<void>;
}

export async function startWalletCallback(): Promise<WalletCallback> {
  const received: URL[] = [];
  let base = "";
  const server: Server = createServer((request: IncomingMessage, response) => {
    received.push(new URL(request.url ?? "/", base));
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end('<!doctype html><html lang="en"><title>Wallet</title><h1>Back in the wallet</h1></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    redirectUri: `${base}/callback`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
