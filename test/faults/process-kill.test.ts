import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyTenant,
  issueCredential,
  openSession,
  presentation,
  redeemCode,
  submitPresentation,
  type Tenant,
  verificationResult,
} from "../hostile/support/flows.js";
import { type HttpResult, hasErrorShape } from "../hostile/support/http.js";
import { type Cluster, startCluster, waitFor } from "./support/cluster.js";
import {
  type FlowOutcome,
  finishWithToken,
  issuerJwtSha256,
  prepareOffer,
  resilientIssuance,
} from "./support/resilient.js";

/**
 * kill -9 of a service in the middle of its work, then a restart (services as separate processes,
 * as in production). Clients see retries or clean errors, and no state is left half-written.
 */
const PORT_OFFSET = 22_100;

/**
 * Whether a request waits unread at a local TCP port: an established connection whose local end is
 * `port` with bytes in its receive queue (/proc/net/tcp{,6}), as at a paused (SIGSTOP) server.
 */
function unreadRequestAt(port: number): true | undefined {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const [, local, , state, queues] = line.trim().split(/\s+/);
      const receiveQueue = queues?.split(":")[1];
      if (state === "01" && local?.endsWith(hexPort) && receiveQueue && Number.parseInt(receiveQueue, 16) > 0)
        return true;
    }
  }
  return undefined;
}
const FLOWS = Number(process.env.FAULTS_FLOWS ?? 24);
const CONCURRENCY = 6;
const VOLLEY = 8;

describe("faults: a service killed and restarted", () => {
  let cluster: Cluster;
  let tenant: Tenant;

  beforeAll(async () => {
    cluster = await startCluster({
      portOffset: PORT_OFFSET,
      label: "faults_kill",
      services: ["ledger", "schema-registry", "trust-registry", "auth-server", "credential-issuer", "verifier"],
    });
    tenant = await applyTenant(cluster.url);
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  it("kill -9 of the credential issuer during a burst of issuance flows: every flow completes after the restart, no code is redeemed without its credential record", async () => {
    const outcomes: FlowOutcome[] = [];
    const failures: string[] = [];
    let next = 0;
    let completed = 0;
    const worker = async () => {
      while (next < FLOWS) {
        next++;
        try {
          outcomes.push(await resilientIssuance(cluster.url, tenant));
        } catch (error) {
          failures.push(String((error as Error).message).slice(0, 400));
        }
        completed++;
      }
    };
    // A volley of token requests that will be in flight (auth server -> GrantService) at the kill.
    const volley = await Promise.all(
      Array.from({ length: VOLLEY }, async () => {
        const outcome: FlowOutcome = { retries: 0, unclean: [] };
        return { outcome, prepared: await prepareOffer(cluster.url, tenant, outcome) };
      }),
    );
    const burst = Promise.all(Array.from({ length: CONCURRENCY }, worker));
    // Kill once the burst is well under way, restart right away (the clients keep retrying).
    await waitFor("a quarter of the flows", async () => (completed >= FLOWS / 4 ? true : undefined), {
      timeoutMs: 60_000,
    });
    const inFlight = volley.map(({ prepared }) =>
      redeemCode(cluster.url, prepared.code).catch((error: Error) => error),
    );
    await new Promise((resolve) => setTimeout(resolve, 15));
    await cluster.stop("credential-issuer", "SIGKILL");
    const volleyAnswers = await Promise.all(inFlight);
    await cluster.start("credential-issuer");
    await burst;
    const badAnswers = volleyAnswers
      .filter((answer): answer is HttpResult => !(answer instanceof Error))
      .filter(
        (answer) =>
          (answer.status >= 500 && ![502, 503, 504].includes(answer.status)) ||
          (answer.status >= 400 && !hasErrorShape(answer.json, "oauth")),
      )
      .map((answer) => `${answer.status} ${answer.text.slice(0, 200)}`);
    expect(
      badAnswers,
      `token requests in flight when the issuer died: 503 (retry) or a clean refusal, never a 500; auth-server: ${cluster
        .errorsOf("auth-server")
        .filter((line) => !line.includes("ECONNREFUSED"))
        .slice(-3)
        .join(" | ")}`,
    ).toEqual([]);
    // The volley's wallets carry on: retry the token when told to, then get the credential.
    for (const [index, { outcome, prepared }] of volley.entries()) {
      const answer = volleyAnswers[index]!;
      if (!(answer instanceof Error) && answer.status === 200) {
        // The token arrived: the wallet goes on with it (a second redemption would be a replay).
        outcomes.push(await finishWithToken(cluster.url, prepared, answer, outcome));
      } else {
        outcomes.push(await resilientIssuance(cluster.url, tenant, { prepared, outcome, tokenAlreadyTried: true }));
      }
    }

    expect(
      failures,
      `flows that failed for good; auth-server errors: ${cluster.errorsOf("auth-server").join(" | ")}`,
    ).toEqual([]);
    const unclean = outcomes.flatMap((outcome) => outcome.unclean);
    expect(unclean, "5xx other than 502/503/504, or undocumented error bodies, seen by clients").toEqual([]);
    expect(
      outcomes.reduce((sum, outcome) => sum + outcome.retries, 0),
      "the kill was noticed",
    ).toBeGreaterThan(0);

    const schema = cluster.schema["credential-issuer"];
    const orphans = await cluster.pool.query<{ id: string }>(
      `SELECT o.id FROM "${schema}".offers o WHERE o.status = 'redeemed'
           AND NOT EXISTS (SELECT 1 FROM "${schema}".credentials c WHERE c.offer_id = o.id)`,
    );
    const abandoned = outcomes
      .filter((outcome) => outcome.abandoned)
      .map((outcome) => `${outcome.offerId}: ${outcome.abandoned}`);
    expect(
      orphans.rows.map((row) => row.id),
      `redeemed offers without a credential record (${abandoned.join("; ")})`,
    ).toEqual([]);

    const received = outcomes
      .filter((outcome) => outcome.credential)
      .map((outcome) => issuerJwtSha256(outcome.credential!));
    expect(received.length + abandoned.length).toBe(FLOWS + VOLLEY);
    const recorded = await cluster.pool.query<{ issuer_jwt_sha256: string }>(
      `SELECT issuer_jwt_sha256 FROM "${schema}".credentials WHERE issuer_jwt_sha256 = ANY($1)`,
      [received],
    );
    expect(recorded.rows.length, "every credential a wallet received has its record").toBe(received.length);
  }, 180_000);

  it("kill -9 of the verifier while a presentation is being verified: the session is left pending (not consumed), and the wallet's next presentation completes", async () => {
    // X.509 path: its key is in x5c, so only revocation (its Token Status List) needs the credential issuer.
    const issued = await issueCredential(cluster.url, tenant, { x509: true });
    const session = await openSession(cluster.url, tenant.apiKey);
    const vp = await presentation(issued, session);
    // The revocation check fetches the issuer's status list; with the issuer paused (connections
    // accepted by the kernel, never read) the request waits in the issuer's socket, which holds the
    // verification there long enough to kill the verifier in the middle of it.
    cluster.pause("credential-issuer", true);
    const submitted = submitPresentation(cluster.url, session, vp).catch((error: Error) => error);
    const issuerPort = Number(new URL(cluster.url.issuer).port);
    await waitFor("the status list request to reach the paused issuer", async () => unreadRequestAt(issuerPort), {
      timeoutMs: 10_000,
      intervalMs: 20,
    });
    await cluster.stop("verifier", "SIGKILL");
    const answer = await submitted;
    // The wallet saw the connection drop: a transport error, never a half answer.
    if (!(answer instanceof Error)) {
      expect([200, 400, 502, 503, 504], answer.text).toContain(answer.status);
      if (answer.status >= 400) expect(hasErrorShape(answer.json, "oauth"), answer.text).toBe(true);
    }
    cluster.pause("credential-issuer", false);
    await cluster.start("verifier");

    // The verifier records a presentation's outcome in one write after verifying it, so its death
    // mid-verification stored nothing: the session is still open, nothing is stuck in_progress.
    const schema = cluster.schema.verifier;
    const { rows } = await cluster.pool.query<{ status: string }>(
      `SELECT status FROM "${schema}".verification_sessions WHERE id = $1`,
      [session.session_id],
    );
    expect(rows[0]?.status).toBe("pending");
    const again = await submitPresentation(cluster.url, session, vp);
    expect(again.status, again.text).toBe(200);
    const result = await verificationResult(cluster.url, tenant.apiKey, session.session_id);
    expect((result.json as { status: string }).status).toBe("completed");
    const stuck = await cluster.pool.query<{ id: string }>(
      `SELECT id FROM "${schema}".verification_sessions WHERE status = 'in_progress'`,
    );
    expect(stuck.rows).toEqual([]);
  }, 120_000);
});
