import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyTenant,
  createOffer,
  didKeyIssuer,
  expectStatus,
  fetchNonce,
  fetchOffer,
  getToken,
  type Issued,
  keyProof,
  openSession,
  p256Key,
  postCredential,
  presentation,
  submitPresentation,
  type Tenant,
  verificationResult,
} from "../hostile/support/flows.js";
import { startTestPlatform, type TestPlatform } from "../hostile/support/platform.js";
import { type ProcessWork, recordAllStatements } from "./support/statement-ledger.js";

/**
 * The database work of whole flows through the real platform (every service in this process, the
 * all-in-one's `startPlatform`), counted at the `pg` client per service: statements sent and
 * commits (transactions that write). Pinned per step and service, so a change that adds a round
 * trip says so here; other work (caches, merged statements) lowers them: update the tables below to
 * the truth, and the hack/bench README's "Database work per flow" with them.
 *
 * Background work (ledger checkpoints, job polling) is slowed down and the notarization batch
 * cutter's ticks and the asynchronous dispatch of webhook events are left out, so only the flow's
 * own statements land in a step.
 */
const PORT_OFFSET = 13_120;

type Counts = Record<string, string>;

/**
 * An issuance, "statements/commits" per step and service. `attesto-cache-invalidations` is the
 * coherent caches' barrier (`@attesto/store` cache-invalidations.ts): one round trip on the
 * listening connection (a bare Sync, no statement) before a cached read is trusted, so a change
 * committed on any replica before the request began (a revoked API key, a deactivated tenant) is
 * seen at once; one per request, shared by its cached reads (`cacheScopeOf`). What each is for:
 * - offer: one barrier for the API key, the tenant and the issuer configuration (cached reads: the
 *   request's scope); issuer: the offer insert (the tenant's key stored with its first offer only).
 * - offer document: barrier (the tenant still active); no offer read: the offer as this process
 *   created it (`offer-memory.ts`: what the document shows never changes); one another replica
 *   created is read.
 * - token: barrier (the tenant still active); issuer: single use of the pre-authorized code (one
 *   conditional UPDATE … RETURNING, won by this request's own redemption id, so the request that
 *   gets the grant is the one that mints the token). The auth server writes nothing: it records a
 *   redemption only when its answer was lost (`redeem-grant.ts`; it was 1/1 with a minted-token
 *   claim after every redemption).
 * - credential: barrier (the tenant still active); issuer: one statement for c_nonce single use,
 *   the issuance allowance and the credential record (stored before the response; its status list
 *   entry, unique, was claimed ahead: one claim per 32 credentials, `status-entry-pool.ts`). No
 *   offer read: the credential is signed from the offer as the token step redeemed it in this
 *   process (`offer-memory.ts`: what it signs from never changes once redeemed); an offer another
 *   replica redeemed is read first. Not folded into that statement: the record holds the SHA-256 of
 *   the signed credential, so signing after the statement would need a second write (and leave a
 *   spent nonce, a taken allowance and a record without a credential when signing fails).
 */
const ISSUANCE: Record<string, Counts> = {
  offer: { "attesto-cache-invalidations": "1/0", "credential-issuer": "1/1" },
  offerDocument: { "attesto-cache-invalidations": "1/0" },
  token: { "attesto-cache-invalidations": "1/0", "credential-issuer": "1/1" },
  nonce: {},
  credential: { "attesto-cache-invalidations": "1/0", "credential-issuer": "1/1" },
};
const ISSUANCE_TOTAL = "7/3";

/**
 * A verification, "statements/commits" per step and service (barriers as above, for the API key
 * and the credential issuer's standing):
 * - request: verifier: the session insert, then its read by request_uri (the request object the
 *   wallet fetches).
 * - presentation: verifier: no read: the session as this process created it (`pending-sessions.ts`:
 *   what a presentation uses of it never changes; one created on another replica is read, with its
 *   tenant's policies) and the tenant's policies from their coherent cache (the barrier, shared with
 *   the issuer's standing); once the checks ran, one conditional UPDATE pending -> completed |
 *   failed with their results (single use: of concurrent presentations exactly one is recorded,
 *   whatever this process remembers; it was 3/2 with a separate claim, pending -> in_progress,
 *   before the checks and the results written after them, then 2/1 with the session read). The scheduler stores
 *   no verification event: the tenant has no endpoint that lists `verification.*` (opt-in types;
 *   with one, the event is one statement, the webhook outbox with its dispatch job).
 * - result: barrier (the API key); no session read: the outcome as this process's recording write
 *   left the row (`recorded-outcomes.ts`: a recorded session is terminal), on the tenant's first
 *   read here; a later read, or one of an outcome another replica recorded, reads the session.
 */
const VERIFICATION: Record<string, Counts> = {
  request: { "attesto-cache-invalidations": "1/0", verifier: "2/1" },
  presentation: { "attesto-cache-invalidations": "1/0", verifier: "1/1" },
  result: { "attesto-cache-invalidations": "1/0" },
};
const VERIFICATION_TOTAL = "6/2";

/** `statements/commits` per service that did any database work in the step. */
const countsOf = (work: Record<string, ProcessWork>): Counts =>
  Object.fromEntries(
    Object.entries(work)
      .filter(([, w]) => w.statements > 0)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, w]) => [name, `${w.statements}/${w.commits}`]),
  );

const totalOf = (steps: Record<string, Record<string, ProcessWork>>) => {
  let statements = 0;
  let commits = 0;
  for (const work of Object.values(steps)) {
    for (const w of Object.values(work)) {
      statements += w.statements;
      commits += w.commits;
    }
  }
  return `${statements}/${commits}`;
};

describe("database work per whole flow (statements/commits per service)", () => {
  let platform: TestPlatform;
  let tenant: Tenant;
  // Not a flow's own work: the scheduler's notarization batch cutter (it ticks every second whatever
  // its interval), the job queue (its own clients: polling, maintenance) with its dispatch of the
  // verification event (asynchronous, when the queue polls), and the purge of expired single-use
  // records that follows 1 % of their inserts at random (store/replay-guard.ts).
  const recorder = recordAllStatements({
    background:
      /"salted_digest", created_at <=|webhook_events" where "event_id"|set "dispatched_at"|used_values" where "expires_at" <=/i,
    backgroundApplications: ["scheduler-jobs"],
  });

  beforeAll(async () => {
    platform = await startTestPlatform({
      portOffset: PORT_OFFSET,
      label: "dbwork",
      env: {
        SCHEDULER_JOB_POLLING_INTERVAL_MS: "60000",
        SCHEDULER_JOB_IDLE_POLLING_INTERVAL_MS: "300000",
        SCHEDULER_JOB_SUPERVISE_INTERVAL_SECONDS: "3600",
        SCHEDULER_JOB_RECONCILE_INTERVAL_MS: "3600000",
        LEDGER_CHECKPOINT_INTERVAL_MS: "3600000",
      },
    });
    tenant = await applyTenant(platform.url);
  });
  afterAll(async () => {
    recorder.stop();
    await platform?.close();
  });

  /** Offer → offer document → token → nonce → credential (DID path: did:key issuer, Bearer token). */
  const issuance = async () => {
    const steps: Record<string, Record<string, ProcessWork>> = {};
    const holder = p256Key();
    let offer: Awaited<ReturnType<typeof createOffer>> | undefined;
    steps.offer = await recorder.during(async () => {
      offer = await createOffer(platform.url, tenant.apiKey, { signing: didKeyIssuer(tenant.tenant) });
    });
    let fetched: Awaited<ReturnType<typeof fetchOffer>> | undefined;
    steps.offerDocument = await recorder.during(async () => {
      fetched = await fetchOffer(offer!);
    });
    let token: Awaited<ReturnType<typeof getToken>> | undefined;
    steps.token = await recorder.during(async () => {
      token = await getToken(platform.url, fetched!.code);
    });
    let nonce = "";
    steps.nonce = await recorder.during(async () => {
      nonce = await fetchNonce(platform.url);
    });
    const proof = await keyProof({ key: holder, nonce, audience: fetched!.document.credential_issuer });
    let credential = "";
    steps.credential = await recorder.during(async () => {
      const result = await postCredential(platform.url, token!, {
        credential_configuration_id: fetched!.document.credential_configuration_ids[0],
        proofs: { jwt: [proof] },
      });
      expectStatus(result, 200, "POST /credential");
      credential = (result.json as { credentials: Array<{ credential: string }> }).credentials[0]!.credential;
    });
    return { steps, issued: { credential, holder, token: token!, offer: offer! } satisfies Issued };
  };

  /** Authorization request → request object → presentation (direct_post) → result. */
  const verification = async (issued: Issued) => {
    const steps: Record<string, Record<string, ProcessWork>> = {};
    let session: Awaited<ReturnType<typeof openSession>> | undefined;
    steps.request = await recorder.during(async () => {
      session = await openSession(platform.url, tenant.apiKey);
    });
    const vp = await presentation(issued, session!);
    steps.presentation = await recorder.during(async () => {
      expectStatus(await submitPresentation(platform.url, session!, vp), 200, "POST /v1/verifier/presentation");
    });
    steps.result = await recorder.during(async () => {
      const result = await verificationResult(platform.url, tenant.apiKey, session!.session_id);
      expectStatus(result, 200, "GET /v1/verifier/result/:id");
      expect((result.json as { status: string }).status).toBe("completed");
    });
    return steps;
  };

  const show = (steps: Record<string, Record<string, ProcessWork>>) =>
    JSON.stringify(
      Object.fromEntries(
        Object.entries(steps).map(([step, work]) => [
          step,
          Object.fromEntries(Object.entries(work).map(([name, w]) => [name, w.texts])),
        ]),
      ),
      null,
      1,
    );

  it("an issuance (DID path, Bearer, once caches are warm)", async () => {
    await issuance(); // the first flow of a tenant fills caches and opens a status list
    const { steps } = await issuance();
    const counts = Object.fromEntries(Object.entries(steps).map(([step, work]) => [step, countsOf(work)]));
    expect({ counts, total: totalOf(steps) }, show(steps)).toEqual({ counts: ISSUANCE, total: ISSUANCE_TOTAL });
  });

  it("a verification (DID-signed credential, direct_post)", async () => {
    const { issued } = await issuance();
    await verification(issued);
    const steps = await verification((await issuance()).issued);
    const counts = Object.fromEntries(Object.entries(steps).map(([step, work]) => [step, countsOf(work)]));
    expect({ counts, total: totalOf(steps) }, show(steps)).toEqual({
      counts: VERIFICATION,
      total: VERIFICATION_TOTAL,
    });
  });
});
