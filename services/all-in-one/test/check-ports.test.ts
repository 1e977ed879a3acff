import net from "node:net";
import { describe, expect, it } from "vitest";
import { assertPortsFree } from "../src/check-ports.js";

describe("assertPortsFree", () => {
  it("names every busy port and suggests PORT_OFFSET", async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      await expect(assertPortsFree([{ host: "127.0.0.1", port, owner: "auth-server public" }])).rejects.toThrow(
        `port already in use on 127.0.0.1: ${port} (auth-server public). Is Attesto already running?`,
      );
    } finally {
      busy.close();
    }
  });

  it("rejects a port configured for two listeners", async () => {
    await expect(
      assertPortsFree([
        { host: "127.0.0.1", port: 1, owner: "a public" },
        { host: "127.0.0.1", port: 1, owner: "b internal" },
      ]),
    ).rejects.toThrow("port 1 is configured twice (a public and b internal)");
  });
});
