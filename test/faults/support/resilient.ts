import { createHash } from "node:crypto";
import {
  createOffer,
  didKeyIssuer,
  fetchNonce,
  fetchOffer,
  getToken,
  keyProof,
  p256Key,
  postCredential,
  type Tenant,
  type TokenResult,
} from "../../hostile/support/flows.js";
import { type HttpResult, hasErrorShape } from "../../hostile/support/http.js";
import type { PlatformUrls } from "../../hostile/support/platform.js";

/**
 * A wallet that survives a service restart: a step that fails for a transport reason (connection
 * refused or reset, timeout) or with 502/503/504 is retried with backoff; any other 5xx, or an
 * error body outside the documented shapes, is an "unclean" failure the test reports.
 */

export interface FlowOutcome {
  offerId?: string;
  /** The SD-JWT VC the wallet finally got. */
  credential?: string;
  /** Steps retried after a transport error or 502/503/504. */
  retries: number;
  /** What went wrong in a way a client must never see (5xx other than 502-504, wrong error shape). */
  unclean: string[];
  /** Set when the flow could not complete (e.g. the code was spent by a request whose answer was lost). */
  abandoned?: string;
}

export class TransientError extends Error {}

const RETRYABLE = new Set([502, 503, 504]);

/** Whether an error thrown by a flow step is transient (transport failure or 502/503/504). */
export function isTransient(error: unknown): boolean {
  if (error instanceof TransientError) return true;
  const message = String((error as Error)?.message ?? error);
  if (/HANG:|fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|other side closed|UND_ERR/.test(message)) return true;
  return /: expected \d{3}, got (502|503|504) /.test(message);
}

/** Runs `step` until it succeeds, retrying transient failures for up to `budgetMs`. */
export async function retrying<T>(
  outcome: FlowOutcome,
  what: string,
  step: () => Promise<T>,
  budgetMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + budgetMs;
  let delay = 100;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      const message = String((error as Error)?.message ?? error);
      const status = Number(/got (\d{3}) /.exec(message)?.[1] ?? 0);
      if (status >= 500 && !RETRYABLE.has(status)) outcome.unclean.push(`${what}: ${message.slice(0, 300)}`);
      else if (status >= 500) {
        const body = message.slice(message.indexOf(`got ${status} `) + 8);
        try {
          const json = JSON.parse(body);
          if (!hasErrorShape(json, "api") && !hasErrorShape(json, "oauth"))
            outcome.unclean.push(`${what}: ${body.slice(0, 200)}`);
        } catch {
          // A proxy-less 503 always has a JSON body here; a cut one is just a lost answer.
        }
      }
      if (!isTransient(error) || Date.now() > deadline) throw error;
      outcome.retries++;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 1_000);
    }
  }
}

export const issuerJwtSha256 = (credential: string) =>
  createHash("sha256").update(credential.split("~")[0]!).digest("hex");

export interface PreparedOffer {
  offerId: string;
  code: string;
  credentialIssuer: string;
  configurationId: string;
}

/** An offer (DID path) and its document, every step retried through a restart. */
export async function prepareOffer(urls: PlatformUrls, tenant: Tenant, outcome: FlowOutcome): Promise<PreparedOffer> {
  const offer = await retrying(outcome, "POST /v1/offers", () =>
    createOffer(urls, tenant.apiKey, { signing: didKeyIssuer(tenant.tenant) }),
  );
  outcome.offerId = offer.offer_id;
  const { code, document } = await retrying(outcome, "GET offer", () => fetchOffer(offer));
  return {
    offerId: offer.offer_id,
    code,
    credentialIssuer: document.credential_issuer,
    configurationId: document.credential_configuration_ids[0]!,
  };
}

/**
 * The whole pre-authorized flow (DID path), every step retried through a restart. `firstTokenAttempt`
 * is a token request already sent for this offer (whose answer may have been a transient failure).
 */
export async function resilientIssuance(
  urls: PlatformUrls,
  tenant: Tenant,
  options: { prepared?: PreparedOffer; outcome?: FlowOutcome; tokenAlreadyTried?: boolean } = {},
): Promise<FlowOutcome> {
  const outcome: FlowOutcome = options.outcome ?? { retries: 0, unclean: [] };
  const prepared = options.prepared ?? (await prepareOffer(urls, tenant, outcome));
  const { code } = prepared;
  const _document = {
    credential_issuer: prepared.credentialIssuer,
    credential_configuration_ids: [prepared.configurationId],
  };
  let attempts = options.tokenAlreadyTried ? 1 : 0;
  let token: TokenResult;
  try {
    token = await retrying(outcome, "POST /v1/token", async () => {
      attempts++;
      return getToken(urls, code);
    });
  } catch (error) {
    const message = String((error as Error).message);
    if (attempts > 1 && /invalid_grant/.test(message)) {
      // An earlier attempt redeemed the code but its answer was lost with the killed process.
      outcome.abandoned = `token answer lost: ${message.slice(0, 200)}`;
      return outcome;
    }
    throw error;
  }
  return obtainCredential(urls, prepared, token, outcome);
}

/** With a token in hand: nonce, proof, credential, retried (with a fresh nonce) through a restart. */
async function obtainCredential(
  urls: PlatformUrls,
  prepared: PreparedOffer,
  token: TokenResult,
  outcome: FlowOutcome,
): Promise<FlowOutcome> {
  const holder = p256Key();
  outcome.credential = await retrying(outcome, "POST /credential", async () => {
    const nonce = await fetchNonce(urls);
    const proof = await keyProof({ key: holder, nonce, audience: prepared.credentialIssuer });
    const result = await postCredential(urls, token, {
      credential_configuration_id: prepared.configurationId,
      proofs: { jwt: [proof] },
    });
    if (RETRYABLE.has(result.status)) throw new TransientError(`POST /credential: ${result.status}`);
    if (result.status >= 500) {
      outcome.unclean.push(`POST /credential: ${result.status} ${result.text.slice(0, 200)}`);
      throw new TransientError("retry after an unclean failure");
    }
    if (result.status !== 200)
      throw new Error(`POST /credential: expected 200, got ${result.status} ${result.text.slice(0, 300)}`);
    return (result.json as { credentials: Array<{ credential: string }> }).credentials[0]!.credential;
  });
  return outcome;
}

/** A wallet whose token request already succeeded goes on to the credential. */
export function finishWithToken(
  urls: PlatformUrls,
  prepared: PreparedOffer,
  tokenAnswer: HttpResult,
  outcome: FlowOutcome,
): Promise<FlowOutcome> {
  const body = tokenAnswer.json as { access_token: string; token_type: "DPoP" | "Bearer" };
  return obtainCredential(urls, prepared, { accessToken: body.access_token, tokenType: body.token_type }, outcome);
}
