import { InvalidGrant } from "@attesto/runtime/errors";
import { describe, expect, it } from "vitest";
import type { Grant } from "../src/domain/grant.js";
import { redeemGrant } from "../src/domain/token/redeem-grant.js";

/**
 * redeemGrant makes the token while the claim's statement is in flight, and hands it out only
 * when the claim held. The claim here is a promise the test settles itself.
 */
const GRANT = {
  offerId: "offer-1",
  tenant: "acme",
  credentialConfigurationIds: ["pid"],
  dpopRequired: false,
} as unknown as Grant;

function harness() {
  let settleClaim: (claimed: boolean | Error) => void = () => undefined;
  const events: string[] = [];
  const deps = {
    grants: {
      redeemPreAuthorizedCode: async () => {
        events.push("redeemed");
        return GRANT;
      },
    },
    replay: {
      consume: () => {
        events.push("claim sent");
        return new Promise<boolean>((resolve, reject) => {
          settleClaim = (claimed) => (claimed instanceof Error ? reject(claimed) : resolve(claimed));
        });
      },
    },
    now: () => new Date("2026-01-01T00:00:00Z"),
  };
  const mint = async (grant: Grant) => {
    events.push(`minted for ${grant.offerId}`);
    return "the-token";
  };
  const result = redeemGrant({ grantType: "pre-authorized_code", preAuthorizedCode: "code" } as never, deps, mint);
  result.catch(() => undefined);
  return { result, events, settleClaim: (claimed: boolean | Error) => settleClaim(claimed) };
}

/** Lets every queued callback run (two loop turns: the claim's microtasks, then the immediate). */
const turns = async () => {
  for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

describe("redeemGrant: the token is made while the claim is in flight", () => {
  it("mints after the redemption and the claim were sent, before the claim answers", async () => {
    const { result, events, settleClaim } = harness();
    await turns();
    expect(events).toEqual(["redeemed", "claim sent", "minted for offer-1"]);
    settleClaim(true);
    await expect(result).resolves.toBe("the-token");
  });

  it("a lost claim is invalid_grant: the token made meanwhile never leaves", async () => {
    const { result, settleClaim } = harness();
    await turns();
    settleClaim(false);
    await expect(result).rejects.toBeInstanceOf(InvalidGrant);
    await expect(result).rejects.toThrow("pre-authorized code has already been used");
  });

  it("a failing claim fails the step with its own error", async () => {
    const { result, settleClaim } = harness();
    await turns();
    settleClaim(new Error("database unreachable"));
    await expect(result).rejects.toThrow("database unreachable");
  });
});
