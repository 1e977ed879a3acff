import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createOutboundGuard } from "@attesto/runtime/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TargetRefusedError } from "../../src/domain/deliver-webhook.js";
import { createHttpWebhookSender } from "../../src/webhooks/http-webhook-sender.js";

let server: Server;
let port: number;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push(req.url ?? "");
    if (req.url === "/moved") return res.writeHead(307, { location: "/hook" }).end();
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const send = (url: string, guard = createOutboundGuard()) =>
  createHttpWebhookSender(guard, { timeoutMs: 2000 }).send({ url, body: "{}", headers: {} });

describe("webhook sender (through the outbound request guard)", () => {
  it("refuses http URLs unless allowed, and internal targets, before connecting", async () => {
    await expect(send(`http://hooks.example/x`)).rejects.toThrow(new TargetRefusedError("webhook URL must use https"));
    await expect(send(`http://127.0.0.1:${port}/hook`, createOutboundGuard({ allowHttp: true }))).rejects.toThrow(
      new TargetRefusedError("webhook target resolves to a non-public address (not allowed)"),
    );
    expect(received).toEqual([]);
  });

  it("posts to an allowed target and does not follow redirects", async () => {
    const guard = createOutboundGuard({ allowHosts: [`127.0.0.1:${port}`] });
    expect(await send(`http://127.0.0.1:${port}/hook`, guard)).toEqual({ statusCode: 204 });
    expect(await send(`http://127.0.0.1:${port}/moved`, guard)).toEqual({ statusCode: 307 });
    expect(received).toEqual(["/hook", "/moved"]);
  });
});
