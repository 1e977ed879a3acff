import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import { createOffer, ed25519Key } from "./support/wallet.js";

async function failureOf(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    const connectError = ConnectError.from(error);
    return {
      code: Code[connectError.code],
      error: connectError.metadata.get("attesto-error-code"),
      message: connectError.rawMessage,
    };
  }
  throw new Error("expected the call to fail");
}

describe("GrantService (internal RPC for the authorization server)", () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await issuer.close();
  });

  async function offerWithCode(body: Record<string, unknown> = {}) {
    const created = (await createOffer(issuer, body)).json();
    const document = (await issuer.app.inject({ method: "GET", url: `/v1/offers/${created.offer_id}` })).json();
    return {
      offerId: created.offer_id as string,
      code: document.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]?.["pre-authorized_code"] as string,
      issuerState: document.grants.authorization_code?.issuer_state as string,
    };
  }

  describe("RedeemPreAuthorizedCode", () => {
    it("redeems a code once: the grant names the offer, tenant, configurations and DPoP requirement", async () => {
      const { offerId, code } = await offerWithCode();
      const { grant } = await issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code });
      expect(grant).toMatchObject({
        offerId,
        tenant: "acme",
        credentialConfigurationIds: ["university-diploma"],
        dpopRequired: true,
      });
      expect(await failureOf(issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code }))).toEqual({
        code: "InvalidArgument",
        error: "invalid_grant",
        message: "pre-authorized code has already been used",
      });
    });

    it("does not require DPoP on the DID path", async () => {
      const key = ed25519Key();
      const { didKeyFromPublicJwk } = await import("@attesto/protocol");
      const { code } = await offerWithCode({
        issuer_did: didKeyFromPublicJwk(key.publicJwk as never),
        issuer_private_key: key.privateJwk.d,
      });
      const { grant } = await issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code, txCode: "ignored" });
      expect(grant?.dpopRequired).toBe(false);
    });

    it("lets exactly one of many concurrent redemptions succeed", async () => {
      const { code } = await offerWithCode();
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, () => issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code })),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const failed of results.filter((r) => r.status === "rejected")) {
        const error = ConnectError.from((failed as PromiseRejectedResult).reason);
        expect(error.code).toBe(Code.InvalidArgument);
        expect(error.metadata.get("attesto-error-code")).toBe("invalid_grant");
      }
    });

    it("answers a repeat of the winning redemption (same redemption_id) again, for five minutes", async () => {
      const { offerId, code } = await offerWithCode();
      const redemptionId = "redemption-1";
      const first = await issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code, redemptionId });
      const repeat = await issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code, redemptionId });
      expect(repeat.grant).toEqual(first.grant);
      expect(repeat.grant?.offerId).toBe(offerId);
      const used = {
        code: "InvalidArgument",
        error: "invalid_grant",
        message: "pre-authorized code has already been used",
      };
      expect(
        await failureOf(issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code, redemptionId: "another" })),
      ).toEqual(used);
      expect(await failureOf(issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code }))).toEqual(used);
      issuer.clock.advance(5 * 60 + 1);
      expect(await failureOf(issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code, redemptionId }))).toEqual(
        used,
      );
    });

    it("lets exactly one of concurrent redemptions with different redemption_ids win", async () => {
      const { code } = await offerWithCode();
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, index) =>
          issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code, redemptionId: `r${index}` }),
        ),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    });

    it("refuses an over-long redemption_id", async () => {
      const { code } = await offerWithCode();
      expect(
        await failureOf(
          issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code, redemptionId: "x".repeat(129) }),
        ),
      ).toMatchObject({ error: "invalid_request", message: "redemption_id is longer than 128 characters" });
    });

    it("refuses unknown, empty and expired codes", async () => {
      expect(await failureOf(issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: "nope" }))).toEqual({
        code: "InvalidArgument",
        error: "invalid_grant",
        message: "pre-authorized code is invalid",
      });
      expect(await failureOf(issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: "" }))).toMatchObject({
        error: "invalid_grant",
        message: "pre-authorized_code is required",
      });
      const { code } = await offerWithCode({ expires_in: 60 });
      issuer.clock.advance(60);
      expect(await failureOf(issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code }))).toEqual({
        code: "InvalidArgument",
        error: "invalid_grant",
        message: "pre-authorized code has expired",
      });
    });

    it("refuses the issuer_state of an authorization-code offer as a code", async () => {
      const { issuerState } = await offerWithCode({ flow: "authorization-code" });
      expect((await failureOf(issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: issuerState }))).error).toBe(
        "invalid_grant",
      );
    });
  });

  describe("issuer_state of authorization-code offers", () => {
    it("resolves without consuming, then redeems once", async () => {
      const { offerId, issuerState } = await offerWithCode({ flow: "authorization-code" });
      const expected = {
        offerId,
        tenant: "acme",
        credentialConfigurationIds: ["university-diploma"],
        dpopRequired: true,
      };
      expect((await issuer.grants.resolveIssuerState({ issuerState })).grant).toMatchObject(expected);
      expect((await issuer.grants.resolveIssuerState({ issuerState })).grant).toMatchObject(expected);
      expect((await issuer.grants.redeemIssuerState({ issuerState })).grant).toMatchObject(expected);
      expect(await failureOf(issuer.grants.redeemIssuerState({ issuerState }))).toEqual({
        code: "InvalidArgument",
        error: "invalid_grant",
        message: "issuer_state has already been used",
      });
      expect(await failureOf(issuer.grants.resolveIssuerState({ issuerState }))).toMatchObject({
        code: "NotFound",
        message: "issuer_state is unknown, used or expired",
      });
    });

    it("refuses unknown, malformed and expired issuer_states", async () => {
      expect(await failureOf(issuer.grants.resolveIssuerState({ issuerState: "x" }))).toMatchObject({
        code: "NotFound",
      });
      expect(await failureOf(issuer.grants.redeemIssuerState({ issuerState: "x" }))).toMatchObject({
        error: "invalid_grant",
        message: "issuer_state is invalid",
      });
      expect(
        await failureOf(issuer.grants.redeemIssuerState({ issuerState: "3f2b8c1e-0d4a-4b6e-9f1a-2c3d4e5f6a7b" })),
      ).toMatchObject({ error: "invalid_grant", message: "issuer_state is invalid" });
      const { issuerState } = await offerWithCode({ flow: "authorization-code", expires_in: 60 });
      issuer.clock.advance(61);
      expect(await failureOf(issuer.grants.resolveIssuerState({ issuerState }))).toMatchObject({ code: "NotFound" });
      expect(await failureOf(issuer.grants.redeemIssuerState({ issuerState }))).toMatchObject({
        error: "invalid_grant",
        message: "issuer_state has expired",
      });
    });
  });
});
