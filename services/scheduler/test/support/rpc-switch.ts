import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A JSON-RPC pass-through to `target` that can be switched off (connections are then cut). */
export interface RpcSwitch {
  url: string;
  down: boolean;
  close(): Promise<void>;
}

export async function startRpcSwitch(target: string): Promise<RpcSwitch> {
  const state = { down: false };
  const server: Server = createServer(async (request, response) => {
    if (state.down) {
      request.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const answer = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: Buffer.concat(chunks),
    });
    response.writeHead(answer.status, { "content-type": "application/json" });
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
