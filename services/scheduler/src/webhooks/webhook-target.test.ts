import { describe, expect, it } from "vitest";
import { TargetRefusedError } from "../domain/deliver-webhook.js";
import { isPublicAddress, resolveWebhookTarget } from "./webhook-target.js";

describe("webhook target validation", () => {
  it("classifies addresses", () => {
    for (const address of [
      "127.0.0.1",
      "127.8.9.10",
      "0.0.0.0",
      "10.0.0.1",
      "172.16.5.4",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "224.0.0.1",
      "255.255.255.255",
      "::",
      "::1",
      "fe80::1",
      "fe80::1%eth0",
      "fd00::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
      "64:ff9b::a00:1",
      "2002:7f00:1::",
      "not-an-ip",
    ]) {
      expect({ address, public: isPublicAddress(address) }).toEqual({ address, public: false });
    }
    for (const address of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"]) {
      expect({ address, public: isPublicAddress(address) }).toEqual({ address, public: true });
    }
  });

  const lookupTo =
    (...addresses: string[]) =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

  it("pins the resolved address and refuses hosts resolving to any non-public address", async () => {
    const target = await resolveWebhookTarget("https://hooks.example.com/x", {
      allowPrivate: false,
      lookup: lookupTo("93.184.216.34"),
    });
    expect(target).toMatchObject({ address: "93.184.216.34", family: 4 });
    expect(target.url.hostname).toBe("hooks.example.com");
    // DNS rebinding: one public and one internal answer is refused as a whole.
    await expect(
      resolveWebhookTarget("https://rebind.example.com/", {
        allowPrivate: false,
        lookup: lookupTo("93.184.216.34", "127.0.0.1"),
      }),
    ).rejects.toThrow(TargetRefusedError);
    await expect(resolveWebhookTarget("http://[::ffff:169.254.169.254]/", { allowPrivate: false })).rejects.toThrow(
      "resolves to a non-public address",
    );
  });

  it("allows private targets only when configured", async () => {
    const target = await resolveWebhookTarget("http://127.0.0.1:8080/hook", { allowPrivate: true });
    expect(target.address).toBe("127.0.0.1");
  });

  it("refuses non-http(s) URLs and URLs with credentials", async () => {
    for (const [url, message] of [
      ["ftp://example.com/", "webhook URL must use http or https"],
      ["file:///etc/passwd", "webhook URL must use http or https"],
      ["https://u:p@example.com/", "webhook URL must not carry credentials"],
      ["nope", "webhook URL is not a valid URL"],
    ] as const) {
      await expect(resolveWebhookTarget(url, { allowPrivate: true })).rejects.toThrow(message);
    }
  });
});
