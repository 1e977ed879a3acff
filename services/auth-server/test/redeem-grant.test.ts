import { createHash } from "node:crypto";
import { setImmediate } from "node:timers/promises";
import { InvalidGrant, Unavailable } from "@attesto/runtime/errors";
import { createTestDatabase, type TestDatabase } from "@attesto/store";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Grant } from "../src/domain/grant.js";
import type { GrantRedeemer, UnansweredRedemptions } from "../src/domain/ports.js";
import type { PreAuthorizedCodeGrantRequest } from "../src/domain/token/grant-request.js";
import { redeemGrant } from "../src/domain/token/redeem-grant.js";
import { migrations } from "../src/store/migrations/index.js";
import { createUnansweredRedemptionStore } from "../src/store/unanswered-redemption.store.js";

const GRANT: Grant = { offerId: "offer-1", tenant: "acme", credentialConfigurationIds: ["pid"], dpopRequired: false };

/**
 * The credential issuer's side of one code, as GrantService defines it: of any number of
 * redemption ids exactly one wins; the winner, repeated with the same tx_code, is answered again.
 * `loseAnswers` redemptions commit and then fail without an answer (the issuer died), and
 * `failBeforeCommit` ones fail without committing.
 */
class OneCodeIssuer implements Pick<GrantRedeemer, "redeemPreAuthorizedCode"> {
  winner: string | undefined;
  readonly calls: string[] = [];
  loseAnswers = 0;
  failBeforeCommit = 0;
  constructor(private readonly txCode?: string) {}

  async redeemPreAuthorizedCode(request: { txCode: string | undefined; redemptionId: string }): Promise<Grant> {
    this.calls.push(request.redemptionId);
    await setImmediate(); // an answer comes back later: concurrent calls interleave
    if (this.failBeforeCommit > 0) {
      this.failBeforeCommit--;
      throw new Unavailable("credential issuer is unavailable");
    }
    if (this.txCode !== undefined && request.txCode !== this.txCode) throw new InvalidGrant("tx_code is wrong");
    if (this.winner !== undefined && this.winner !== request.redemptionId) {
      throw new InvalidGrant("pre-authorized code has already been used");
    }
    this.winner = request.redemptionId;
    if (this.loseAnswers > 0) {
      this.loseAnswers--;
      throw new Unavailable("credential issuer is unavailable");
    }
    return GRANT;
  }
}

describe("redeemGrant: single use at the issuer, a lost answer taken up once", () => {
  let database: TestDatabase<unknown>;
  let store: UnansweredRedemptions;
  let clock: Date;
  const storeCalls: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: "auth_redeem", migrations });
    const real = createUnansweredRedemptionStore(database.db);
    // The real store, with its calls counted.
    store = {
      record(...args) {
        storeCalls.push("record");
        return real.record(...args);
      },
      find(...args) {
        storeCalls.push("find");
        return real.find(...args);
      },
      take(...args) {
        storeCalls.push("take");
        return real.take(...args);
      },
    };
  });
  afterAll(() => database?.drop());
  beforeEach(() => {
    storeCalls.length = 0;
    clock = new Date();
  });

  let codes = 0;
  const request = (txCode?: string): PreAuthorizedCodeGrantRequest => ({
    grantType: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
    preAuthorizedCode: `code-${++codes}-${Math.random()}`,
    txCode,
  });
  const redeem = (issuer: OneCodeIssuer, req: PreAuthorizedCodeGrantRequest, unanswered = store) =>
    redeemGrant(req, { grants: issuer, unanswered, now: () => clock });

  it("a request that gets the grant does no database work here, and every request sends its own redemption id", async () => {
    const issuer = new OneCodeIssuer();
    const req = request();
    await expect(redeem(issuer, req)).resolves.toEqual(GRANT);
    expect(storeCalls).toEqual([]);
    await expect(redeem(issuer, req)).rejects.toThrow("pre-authorized code has already been used");
    expect(issuer.calls).toHaveLength(2);
    expect(issuer.calls[0]).not.toBe(issuer.calls[1]);
    expect(issuer.calls[0]).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // The refusal looked for an unanswered redemption and found none.
    expect(storeCalls).toEqual(["find"]);
  });

  it("a lost answer: 503, then the retry gets the grant, then the code is used", async () => {
    const issuer = new OneCodeIssuer();
    issuer.loseAnswers = 1;
    const req = request();
    await expect(redeem(issuer, req)).rejects.toBeInstanceOf(Unavailable);
    expect(storeCalls).toEqual(["record"]);
    await expect(redeem(issuer, req)).resolves.toEqual(GRANT);
    // Its own redemption refused, then the lost one repeated and taken out of the record.
    expect(issuer.calls).toEqual([issuer.winner, expect.any(String), issuer.winner]);
    await expect(redeem(issuer, req)).rejects.toThrow("pre-authorized code has already been used");
    await expect(redeem(issuer, req)).rejects.toBeInstanceOf(InvalidGrant);
  });

  it("of concurrent retries after a lost answer exactly one gets the grant", async () => {
    const issuer = new OneCodeIssuer();
    issuer.loseAnswers = 1;
    const req = request();
    await expect(redeem(issuer, req)).rejects.toBeInstanceOf(Unavailable);
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => redeem(issuer, req)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected")) {
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(InvalidGrant);
    }
  });

  it("a redemption that failed before it committed: the retry wins the code, and its record gives nothing later", async () => {
    const issuer = new OneCodeIssuer();
    issuer.failBeforeCommit = 1;
    const req = request();
    await expect(redeem(issuer, req)).rejects.toBeInstanceOf(Unavailable);
    const stale = issuer.calls[0]!;
    await expect(redeem(issuer, req)).resolves.toEqual(GRANT);
    expect(issuer.winner).not.toBe(stale);
    expect(await store.find(codeHash(req), clock)).toEqual([stale]);
    await expect(redeem(issuer, req)).rejects.toThrow("pre-authorized code has already been used");
  });

  it("a retry with the wrong tx_code does not use up the lost redemption; the right one then gets it", async () => {
    const issuer = new OneCodeIssuer("4321");
    issuer.loseAnswers = 1;
    const req = request("4321");
    await expect(redeem(issuer, req)).rejects.toBeInstanceOf(Unavailable);
    await expect(redeem(issuer, { ...req, txCode: "0000" })).rejects.toBeInstanceOf(InvalidGrant);
    await expect(redeem(issuer, { ...req, txCode: undefined })).rejects.toBeInstanceOf(InvalidGrant);
    await expect(redeem(issuer, req)).resolves.toEqual(GRANT);
  });

  it("an unanswered redemption is taken up only until it expires (10 minutes)", async () => {
    const issuer = new OneCodeIssuer();
    issuer.loseAnswers = 1;
    const req = request();
    await expect(redeem(issuer, req)).rejects.toBeInstanceOf(Unavailable);
    clock = new Date(clock.getTime() + 10 * 60 * 1000 + 1);
    await expect(redeem(issuer, req)).rejects.toThrow("pre-authorized code has already been used");
  });

  it("a record that cannot be written leaves the call's own error to answer", async () => {
    const issuer = new OneCodeIssuer();
    issuer.loseAnswers = 1;
    const failing: UnansweredRedemptions = {
      ...store,
      record: async () => {
        throw new Error("database unreachable");
      },
    };
    await expect(redeem(issuer, request(), failing)).rejects.toBeInstanceOf(Unavailable);
  });

  it("a failure of the repeated redemption other than a refusal is the answer (the record stays)", async () => {
    const issuer = new OneCodeIssuer();
    issuer.loseAnswers = 1;
    const req = request();
    await expect(redeem(issuer, req)).rejects.toBeInstanceOf(Unavailable);
    const lost = issuer.winner!;
    const flaky: Pick<GrantRedeemer, "redeemPreAuthorizedCode"> = {
      redeemPreAuthorizedCode: async (call) => {
        if (call.redemptionId === lost) throw new Unavailable("credential issuer is unavailable");
        return issuer.redeemPreAuthorizedCode(call);
      },
    };
    await expect(redeemGrant(req, { grants: flaky, unanswered: store, now: () => clock })).rejects.toBeInstanceOf(
      Unavailable,
    );
    expect(await store.find(codeHash(req), clock)).toContain(lost);
    await expect(redeem(issuer, req)).resolves.toEqual(GRANT);
  });
});

const codeHash = (req: PreAuthorizedCodeGrantRequest) =>
  createHash("sha256").update(req.preAuthorizedCode).digest("hex");
