import { approvedAuthorizationCode } from "../../hostile/support/authorization-code.js";
import {
  applyTenant,
  BADGE_CONFIG,
  createOffer,
  didKeyIssuer,
  dpopProof,
  fetchNonce,
  fetchOffer,
  getToken,
  keyProof,
  PRE_AUTHORIZED_GRANT,
  p256Key,
  postCredential,
  redeemCode,
  type Tenant,
} from "../../hostile/support/flows.js";
import { type HttpResult, postForm, postJson } from "../../hostile/support/http.js";
import type { ServiceName } from "../../hostile/support/platform.js";
import type { ReplicaPlatform } from "./replica-platform.js";

/**
 * The races of the replica suite (test/replicas) and of its longer run (hack/replicas): each sends
 * its requests at once through the balancer, which alternates between the replicas, and answers
 * every response and whether both replicas received part of them. The callers judge the outcome.
 */
export interface RaceResult {
  results: HttpResult[];
  /** Both replicas of the raced service answered some of the requests. */
  bothReplicas: boolean;
}

export const accepted = (race: RaceResult) => race.results.filter((result) => result.status === 200);
export const refused = (race: RaceResult) => race.results.filter((result) => result.status !== 200);

async function onBothReplicas(
  platform: ReplicaPlatform,
  service: ServiceName,
  race: () => Promise<HttpResult[]>,
): Promise<RaceResult> {
  const before = [...platform.balancers[service].served];
  const results = await race();
  const after = platform.balancers[service].served;
  return { results, bothReplicas: after.every((served, index) => served > (before[index] ?? 0)) };
}

export interface RaceContext {
  platform: ReplicaPlatform;
  tenant: Tenant;
  /** The tenant's credential issuer identifier (key proofs' audience). */
  issuerId: string;
}

export const freshCode = async ({ platform, tenant }: RaceContext) =>
  (await fetchOffer(await createOffer(platform.url, tenant.apiKey, { signing: didKeyIssuer() }))).code;

/** One pre-authorized code redeemed by `n` wallets at once (each with its own DPoP key). */
export async function racePreAuthorizedCode(context: RaceContext, n = 12): Promise<RaceResult> {
  const code = await freshCode(context);
  return onBothReplicas(context.platform, "auth-server", () =>
    Promise.all(Array.from({ length: n }, () => redeemCode(context.platform.url, code, { dpopKey: p256Key() }))),
  );
}

/** One c_nonce in `n` credential requests at once (each proof by another key). */
export async function raceCNonce(context: RaceContext, n = 8): Promise<RaceResult> {
  const { platform, issuerId } = context;
  const token = await getToken(platform.url, await freshCode(context));
  const nonce = await fetchNonce(platform.url);
  return onBothReplicas(platform, "credential-issuer", () =>
    Promise.all(
      Array.from({ length: n }, async () =>
        postCredential(platform.url, token, {
          credential_configuration_id: BADGE_CONFIG,
          proofs: { jwt: [await keyProof({ key: p256Key(), nonce, audience: issuerId })] },
        }),
      ),
    ),
  );
}

/** One DPoP proof (one jti, with a valid server nonce) on `n` token requests for different codes at once. */
export async function raceDpopJti(context: RaceContext, n = 6): Promise<RaceResult> {
  const { platform } = context;
  const key = p256Key();
  const tokenUrl = `${platform.url.auth}/v1/token`;
  const warmUp = await redeemCode(platform.url, await freshCode(context), { dpopKey: key });
  if (warmUp.status !== 200) throw new Error(`DPoP warm-up: ${warmUp.status} ${warmUp.text.slice(0, 300)}`);
  const proof = await dpopProof({ key, htu: tokenUrl, nonce: warmUp.headers.get("dpop-nonce") ?? "" });
  const codes = await Promise.all(Array.from({ length: n }, () => freshCode(context)));
  return onBothReplicas(platform, "auth-server", () =>
    Promise.all(
      codes.map((code) =>
        postForm(tokenUrl, { grant_type: PRE_AUTHORIZED_GRANT, "pre-authorized_code": code }, { dpop: proof }),
      ),
    ),
  );
}

/** One approved authorization code exchanged `n` times at once (fresh attestation PoP and DPoP key each). */
export async function raceAuthorizationCode(context: RaceContext, n = 6): Promise<RaceResult> {
  const approved = await approvedAuthorizationCode(context.platform.url, context.tenant);
  return onBothReplicas(context.platform, "auth-server", () =>
    Promise.all(Array.from({ length: n }, () => approved.exchange())),
  );
}

/** `n` wrong-password logins to a fresh account at once; answers the account too. */
export async function raceLogin(platform: ReplicaPlatform, n = 9): Promise<RaceResult & { account: Tenant }> {
  const account = await applyTenant(platform.url);
  const race = await onBothReplicas(platform, "trust-registry", () =>
    Promise.all(
      Array.from({ length: n }, () =>
        postJson(`${platform.url.trust}/v1/auth/login`, { uuid: account.uuid, password: "Wrong-Passw0rd-1" }),
      ),
    ),
  );
  return { ...race, account };
}

/** Issues `count` credentials notarized on the ledger (each notarization sends a webhook event). */
export async function issueOnChain(context: RaceContext, count: number): Promise<RaceResult> {
  const { platform, issuerId } = context;
  return onBothReplicas(platform, "credential-issuer", async () => {
    const results: HttpResult[] = [];
    for (let i = 0; i < count; i++) {
      const token = await getToken(platform.url, await freshCode(context));
      results.push(
        await postCredential(platform.url, token, {
          credential_configuration_id: BADGE_CONFIG,
          proofs: {
            jwt: [await keyProof({ key: p256Key(), nonce: await fetchNonce(platform.url), audience: issuerId })],
          },
          is_on_chain: true,
        }),
      );
    }
    return results;
  });
}
