import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { issuanceV1 } from "@attesto/proto";
import { OAuthError } from "@attesto/runtime/errors";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";

type TestGrant = {
  offerId: string;
  tenant: string;
  credentialConfigurationIds: string[];
  dpopRequired: boolean;
  /** The offer's claims as key paths (GrantService `claim_paths`). */
  claimPaths?: Array<{ keys: string[] }>;
};

/** What the test offers carry unless told: a diploma's claims, one of them nested. */
export const TEST_OFFER_CLAIM_PATHS = [["given_name"], ["family_name"], ["degree", "type"], ["degree", "name"]].map(
  (keys) => ({ keys }),
);

interface StoredOffer {
  grant: TestGrant;
  txCode?: string;
  expiresAt: Date;
  redeemed: boolean;
  /** The redemption id that consumed a pre-authorized code (a repeat of it gets the grant again). */
  redemptionId?: string;
}

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const invalidGrant = (message: string) => new OAuthError(400, "invalid_grant", message);
const notFound = (message: string) => new OAuthError(404, "not_found", message);

/**
 * The credential issuer's GrantService as the auth server sees it over Connect: codes stored as
 * SHA-256, single use (of concurrent redemptions exactly one wins; the winner's redemption id may
 * repeat), expiry, tx_code. Records
 * every request so tests can see what the token endpoint passed through.
 */
export class InMemoryGrantService {
  readonly requests: Array<{ preAuthorizedCode: string; txCode: string }> = [];
  /** ResolveIssuerState / RedeemIssuerState calls, in order. */
  readonly issuerStateRequests: Array<{ rpc: "resolve" | "redeem"; issuerState: string }> = [];
  /** Tenants CheckIssuerActive refuses (deactivated). */
  readonly deactivatedTenants = new Set<string>();
  private readonly offers = new Map<string, StoredOffer>();
  /** Authorization-code offers by issuer_state (as the issuer keeps them: lowercase UUIDs). */
  private readonly issuerStates = new Map<string, StoredOffer>();
  /** Simulated latency of a redemption, so concurrent requests really overlap. */
  latencyMs = 5;
  /** How many redemptions commit and then lose their answer (the issuer dies before replying). */
  lostAnswers = 0;
  now: () => Date = () => new Date();

  addOffer(
    code: string,
    grant: Partial<StoredOffer["grant"]> & { offerId: string },
    options: { txCode?: string; expiresAt?: Date } = {},
  ): void {
    this.offers.set(sha256(code), {
      grant: { tenant: "acme", credentialConfigurationIds: ["diploma_v1"], dpopRequired: false, ...grant },
      ...(options.txCode === undefined ? {} : { txCode: options.txCode }),
      expiresAt: options.expiresAt ?? new Date(this.now().getTime() + 3_600_000),
      redeemed: false,
    });
  }

  /** An authorization-code offer whose `grants.authorization_code.issuer_state` is `issuerState`. */
  addAuthorizationCodeOffer(
    issuerState: string,
    grant: Partial<TestGrant> & { offerId: string },
    options: { expiresAt?: Date } = {},
  ): void {
    this.issuerStates.set(issuerState.toLowerCase(), {
      grant: {
        tenant: "acme",
        credentialConfigurationIds: ["diploma_v1"],
        dpopRequired: false,
        claimPaths: TEST_OFFER_CLAIM_PATHS,
        ...grant,
      },
      expiresAt: options.expiresAt ?? new Date(this.now().getTime() + 3_600_000),
      redeemed: false,
    });
  }

  /** The answer of a committed redemption, unless it is to be lost. */
  private answer(grant: TestGrant) {
    if (this.lostAnswers > 0) {
      this.lostAnswers--;
      throw new ConnectError("the issuer died after committing", Code.Unavailable);
    }
    return { grant };
  }

  readonly routes = (router: ConnectRouter) => {
    router.service(issuanceV1.GrantService, {
      redeemPreAuthorizedCode: async (request) => {
        this.requests.push({ preAuthorizedCode: request.preAuthorizedCode, txCode: request.txCode });
        await sleep(this.latencyMs);
        // From here to the update nothing awaits: the check-and-set is atomic, as a row lock makes it.
        const offer = this.offers.get(sha256(request.preAuthorizedCode));
        if (!offer) throw invalidGrant("pre-authorized code is unknown");
        const repeat = offer.redeemed && request.redemptionId !== "" && offer.redemptionId === request.redemptionId;
        if (repeat) return this.answer(offer.grant);
        if (offer.redeemed) throw invalidGrant("pre-authorized code has already been used");
        if (offer.expiresAt <= this.now()) throw invalidGrant("pre-authorized code has expired");
        if (offer.txCode !== undefined && offer.txCode !== request.txCode)
          throw invalidGrant("tx_code is wrong or missing");
        offer.redeemed = true;
        offer.redemptionId = request.redemptionId;
        return this.answer(offer.grant);
      },
      resolveIssuerState: async (request) => {
        this.issuerStateRequests.push({ rpc: "resolve", issuerState: request.issuerState });
        const offer = this.issuerStates.get(request.issuerState);
        if (!offer || offer.redeemed || offer.expiresAt <= this.now()) {
          throw notFound("issuer_state is unknown, used or expired");
        }
        return { grant: offer.grant };
      },
      redeemIssuerState: async (request) => {
        this.issuerStateRequests.push({ rpc: "redeem", issuerState: request.issuerState });
        await sleep(this.latencyMs);
        const offer = this.issuerStates.get(request.issuerState);
        if (!offer) throw invalidGrant("issuer_state is invalid");
        if (offer.redeemed) throw invalidGrant("issuer_state has already been used");
        if (offer.expiresAt <= this.now()) throw invalidGrant("issuer_state has expired");
        offer.redeemed = true;
        return { grant: offer.grant };
      },
      checkIssuerActive: async (request) => {
        if (this.deactivatedTenants.has(request.tenant))
          throw invalidGrant("the credential issuer is no longer active");
        return {};
      },
    });
  };
}
