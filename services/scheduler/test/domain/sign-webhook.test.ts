import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signWebhook, verifyWebhookSignature } from "../../src/domain/sign-webhook.js";

describe("webhook signatures", () => {
  const secret = "whsec_test_secret_test_secret_test";
  const body = '{"id":"e1","type":"credential.notarized"}';

  it("is t=<unix>,v1=<hex HMAC-SHA256(secret, t.body)>", () => {
    const header = signWebhook(secret, body, 1_800_000_000);
    const expected = createHmac("sha256", secret).update(`1800000000.${body}`).digest("hex");
    expect(header).toBe(`t=1800000000,v1=${expected}`);
  });

  it("verifies within the 300 s replay window only, and only for the same body and secret", () => {
    const header = signWebhook(secret, body, 1_800_000_000);
    expect(verifyWebhookSignature(secret, body, header, 1_800_000_300)).toBe(true);
    expect(verifyWebhookSignature(secret, body, header, 1_799_999_700)).toBe(true);
    expect(verifyWebhookSignature(secret, body, header, 1_800_000_301)).toBe(false);
    expect(verifyWebhookSignature(secret, `${body} `, header, 1_800_000_000)).toBe(false);
    expect(verifyWebhookSignature(`${secret}x`, body, header, 1_800_000_000)).toBe(false);
    expect(verifyWebhookSignature(secret, body, "v1=abc", 1_800_000_000)).toBe(false);
    // A header may carry several v1 values (secret rotation); one match is enough.
    expect(verifyWebhookSignature(secret, body, `${header},v1=${"0".repeat(64)}`, 1_800_000_000)).toBe(true);
  });
});
