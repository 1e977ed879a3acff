import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrateToLatest, openDatabase } from "@attesto/store";
import { PGlite } from "@electric-sql/pglite";
import { PgBoss } from "pg-boss";
import { serialize } from "pg-protocol";
import { migrations as issuerMigrations } from "../../../services/credential-issuer/src/store/migrations/index.js";
import { EMBEDDED_SETTINGS } from "../../../services/lib/store/src/embedded.js";
import { NamingClient } from "../../../services/lib/store/src/named-statements.js";
import { PgliteWireServer } from "../../../services/lib/store/src/pglite-wire-server.js";
import { migrations as schedulerMigrations } from "../../../services/scheduler/src/store/migrations/index.js";
import { migrations as verifierMigrations } from "../../../services/verifier/src/store/migrations/index.js";

/**
 * CPU per execution of the hot statements of an issuance and a verification on PGlite itself
 * (in process, no wire server): the real schemas (the services' migrations, run through the wire
 * server once), realistic data, then each statement as the stores send it, a named prepared
 * statement (Parse once, then Bind/Execute/Sync per run, as the wire server forwards them), with
 * fresh parameters per run. Reports µs of this process's CPU per execution (process.cpuUsage;
 * PGlite's JS glue included, the same for every statement: see `select 1`), and with `--explain`
 * EXPLAIN (ANALYZE, BUFFERS, WAL) of each.
 *
 *   npm run bench:experiment -- embedded-statement-cost [runs] [--explain] [--set name=value ...]
 *
 * `--set` adds settings (as `-c`) on top of the embedded database's own, to compare them.
 * Environment: PRIOR_FLOWS (earlier flows' rows, 5000), ENTRIES (more taken status list entries),
 * PASSES (the cases run again, for pairs), ONLY (cases whose name contains one of these, comma
 * separated), UNNAMED=1 (every run parsed and planned: an unnamed statement), WIRE=1 (through the
 * wire server and the services' pg clients instead), PGBOSS=1 (a pg-boss job's send, fetch and
 * complete with pg-boss's own clients and with NamingClient, in alternating order).
 */
const args = process.argv.slice(2);
const runs = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 2000);
const explain = args.includes("--explain");
const extra = args.flatMap((arg, i) => (args[i - 1] === "--set" ? [arg] : []));

const dataDir = mkdtempSync(join(tmpdir(), "statement-cost-"));
const startParams = [
  ...PGlite.defaultStartParams,
  ...Object.entries(EMBEDDED_SETTINGS).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
  ...extra.flatMap((setting) => ["-c", setting]),
];
const pglite = await PGlite.create({ dataDir, startParams });

// The schemas, by the services' own migrations (kysely needs a pg client: the wire server, once).
const server = new PgliteWireServer(pglite);
const port = await server.listen("127.0.0.1", 0);
for (const [schema, migrations] of [
  ["credential_issuer", issuerMigrations],
  ["verifier", verifierMigrations],
  ["scheduler", schedulerMigrations],
] as const) {
  const database = openDatabase({ url: `postgres://postgres@127.0.0.1:${port}/postgres`, schema, poolMax: 1 });
  await migrateToLatest(database.db as never, schema, migrations);
  await database.close();
}
// pg-boss's schema and the webhook dispatch queue, as the scheduler sets them up; then its job
// insert, recorded (not run), as the scheduler composes it into the webhook event's statement.
const boss = new PgBoss({
  connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
  schema: "scheduler_jobs",
  max: 1,
  schedule: false,
  supervise: false,
});
boss.on("error", () => {});
await boss.start();
const QUEUE = "dispatch-webhook-event";
await boss.createQueue(QUEUE, {
  expireInSeconds: 60,
  retryLimit: 20,
  retryDelay: 2,
  retryBackoff: true,
  retryDelayMax: 300,
});
await boss.findJobs(QUEUE, { id: "00000000-0000-0000-0000-000000000000" });
const recordedJob = async (id: string, eventId: string) => {
  let recorded: { text: string; values: unknown[] } | undefined;
  const recorder = {
    async executeSql(text: string, values?: unknown[]) {
      recorded = { text, values: values ?? [] };
      return { rows: [{ id }] };
    },
  };
  await boss.send(QUEUE, { eventId }, { id, db: recorder });
  if (!recorded) throw new Error("pg-boss sent no statement");
  return { text: recorded.text, payload: String(recorded.values[0]) };
};
const jobShape = (await recordedJob(randomUUID(), randomUUID())).text.split(/\$1(?!\d)/);

// --- running a statement as a named prepared statement --------------------------------------

type Value = string | number | null | Buffer | number[];
const prepared = new Set<string>();
const names = new Map<string, string>();
const toText = (value: Value): string | null | Buffer =>
  value === null || Buffer.isBuffer(value) ? value : Array.isArray(value) ? `{${value.join(",")}}` : String(value);

/** The first ErrorResponse's message in a response, if any. */
function errorOf(response: Uint8Array): string | undefined {
  const bytes = Buffer.from(response);
  for (let at = 0; at < bytes.length; ) {
    const type = String.fromCharCode(bytes[at] ?? 0);
    const length = bytes.readUInt32BE(at + 1);
    if (type === "E")
      return bytes
        .subarray(at + 5, at + 1 + length)
        .toString("utf8")
        .replace(/\0/g, " ");
    at += 1 + length;
  }
  return undefined;
}

/** Parses `text` as its named statement (not measured: the wire server parses a text once). */
async function prepare(text: string): Promise<void> {
  const name = `s${names.size}`;
  if (names.has(text)) return;
  names.set(text, name);
  const error = errorOf(
    await pglite.execProtocolRaw(Buffer.concat([serialize.parse({ name, text, types: [] }), serialize.sync()])),
  );
  if (error) throw new Error(`${error}\n${text}`);
  prepared.add(name);
}

/** WIRE=1: through the wire server and a pool of the services' pg clients (named statements), in this process. */
let wirePool: ReturnType<typeof openDatabase>["pool"] | undefined;

async function run(text: string, values: Value[]): Promise<unknown> {
  if (wirePool) return wirePool.query(text, values);
  let name = names.get(text);
  if (!name) {
    name = `s${names.size}`;
    names.set(text, name);
  }
  const parts: Buffer[] = [];
  // UNNAMED=1: parsed and planned on every run (an unnamed statement), for comparison.
  if (process.env.UNNAMED) {
    name = "";
    parts.push(serialize.parse({ name, text, types: [] }));
  } else if (!prepared.has(name)) parts.push(serialize.parse({ name, text, types: [] }));
  parts.push(
    serialize.bind({ statement: name, values: values.map(toText) as never }),
    serialize.execute(),
    serialize.sync(),
  );
  const response = await pglite.execProtocolRaw(Buffer.concat(parts), { syncToFs: false });
  const error = errorOf(response);
  if (error) throw new Error(`${error}\n${text}`);
  prepared.add(name);
  return response;
}

// --- the statements (texts as the stores send them, schema names as in production) ------------

const I = '"credential_issuer"';
const V = '"verifier"';
const TENANT = "acme";
const ISSUER_DID = "did:key:z6MkogzpKpwdzwg4wmVCW3zpE1CHH6tdGMUtCaJegSK8uFLx";
const KID = `${ISSUER_DID}#z6MkogzpKpwdzwg4wmVCW3zpE1CHH6tdGMUtCaJegSK8uFLx`;
const SIGNER = `${KID} tc1hmRfwVP584u2JypGq1xL6jdfc51Xe6CQiy2-cih8`;
const JWK = '{"kty":"OKP","crv":"Ed25519","x":"iT4YMME_lPaB9aUzJJc_FqvToAOeer8tSoX4wDHejg0"}';
const CLAIMS =
  '{"given_name":"Erika","family_name":"Mustermann","birth_date":"1990-04-01","degree":{"type":"master","name":"MSc Computer Science"},"awarded_on":"2024-07-15","courses":[{"title":"Cryptography","grade":"1.0"}]}';
const sealed = (length: number) => `v1.test1.${randomBytes(length).toString("base64url")}`;
const hex = () => randomBytes(32).toString("hex");
const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

const OFFER_INSERT = `with "offer" as (insert into ${I}."offers" ("id", "tenant", "credential_configuration_id", "vct", "claims", "signing_mode", "issuer_did", "issuer_kid", "issuer_key_alg", "issuer_key_sealed", "flow", "pre_authorized_code_hash", "pre_authorized_code_sealed", "tx_code_hash", "issuer_state", "holder_did", "status", "expires_at", "created_at", "redeemed_at", "redemption_id") values ($1, $2, $3, $4, $5::json, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)) insert into ${I}."issuer_signing_keys" ("tenant", "kid", "did", "public_jwk", "alg", "first_used_at") values ($22, $23, $24, $25, $26, $27) on conflict ("tenant", "kid") do update set "did" = $28, "public_jwk" = $29, "alg" = $30 where issuer_signing_keys.public_jwk <> $31::jsonb`;
const offerValues = (id: string, codeHash: string): Value[] => [
  id,
  TENANT,
  "university-diploma",
  "https://schemas.example/schemas/university-diploma/v1",
  CLAIMS,
  "did",
  ISSUER_DID,
  KID,
  "EdDSA",
  sealed(180),
  "pre-authorized",
  codeHash,
  sealed(70),
  null,
  null,
  null,
  "offered",
  iso(3_600_000),
  iso(),
  null,
  null,
  TENANT,
  KID,
  ISSUER_DID,
  JWK,
  "EdDSA",
  iso(),
  ISSUER_DID,
  JWK,
  "EdDSA",
  JWK,
];
const OFFER_BY_ID = `select * from ${I}."offers" where "id" = $1`;
const CONFIGURATION = `select * from ${I}."issuer_configurations" where "tenant" = $1`;
const OFFER_REDEEM = `update ${I}."offers" set "status" = $1, "redeemed_at" = $2, "redemption_id" = $3 where "pre_authorized_code_hash" = $4 and "status" = $5 and "expires_at" > $6 and ("tx_code_hash" is null or "tx_code_hash" = $7) returning *`;
const USED_VALUE = `insert into "credential_issuer"."used_values" ("namespace", "value", "expires_at") values ($1, $2, $3) on conflict ("namespace", "value") do update set "expires_at" = "excluded"."expires_at" where "credential_issuer"."used_values"."expires_at" <= $4 returning "value"`;
/** The reservation; `PROBE` " offset 0" keeps the free test a per-index probe (tried, no gain: see the README). */
const reservation = (PROBE: string) =>
  `with "nonces" as (insert into ${I}."used_values" ("namespace", "value", "expires_at") values ($1, $2, $3) on conflict ("namespace", "value") do update set "expires_at" = "excluded"."expires_at" where ${I}."used_values"."expires_at" <= $4 returning "value"), "allowance" as (insert into ${I}."issuance_allowances" ("offer_id", "credential_configuration_id", "issued", "updated_at") select $5::text as "offer_id", $6::text as "credential_configuration_id", $7::integer as "issued", $8::timestamptz as "updated_at" where (SELECT count(*) FROM nonces) = $9 on conflict ("offer_id", "credential_configuration_id") do update set "issued" = issuance_allowances.issued + $10, "updated_at" = $11 where issuance_allowances.issued + $12 <= $13 returning "issued"), "list" as (select "id", "size" from ${I}."status_lists" where "tenant" = $14 and "signer" = $15 and "closed_at" is null order by "created_at", "id" limit $16), "drawn" as (select distinct on (draw.value % list.size) "list"."id" as "list_id", draw.value % list.size as "idx", draw.ord as "ord" from "list", unnest($17::int[]) WITH ORDINALITY as draw(value, ord) where EXISTS (SELECT 1 FROM allowance) order by draw.value % list.size, draw.ord), "claimed" as (insert into ${I}."status_list_entries" ("list_id", "idx") select "drawn"."list_id", "drawn"."idx" from "drawn" where not exists (select "taken"."idx" from ${I}."status_list_entries" as "taken" where "taken"."list_id" = "drawn"."list_id" and "taken"."idx" = "drawn"."idx"${PROBE}) order by "drawn"."ord" limit $18 on conflict do nothing returning "list_id", "idx") select (SELECT count(*) FROM nonces)::integer as "fresh_nonces", (SELECT count(*) FROM allowance)::integer as "reserved", (SELECT coalesce(json_agg(claimed), '[]') FROM claimed) as "entries"`;
/** The reservation as the store sends it. */
const RESERVATION = reservation("");
const RESERVATION_PROBED = reservation(" offset 0");
const draws = () => Array.from({ length: 33 }, () => randomInt(0, 2 ** 31 - 1));
const reservationValues = (offerId: string): Value[] => {
  const now = iso();
  return [
    "c_nonce",
    randomBytes(48).toString("base64url"),
    iso(300_000),
    now,
    offerId,
    "university-diploma",
    1,
    now,
    1,
    1,
    now,
    1,
    10,
    TENANT,
    SIGNER,
    1,
    draws(),
    1,
  ];
};
const CREDENTIAL_INSERT = `insert into ${I}."credentials" ("id", "tenant", "offer_id", "credential_configuration_id", "vct", "issuer_jwt_sha256", "holder_key_thumbprint", "holder_did", "status", "issued_at", "expires_at", "revoked_at", "ledger_chain", "ledger_object_id", "notarization_salt", "status_list_id", "status_idx", "notification_id") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`;
const LIST_ID = randomUUID();
let credentialIndex = 0;
const credentialValues = (offerId: string): Value[] => [
  randomUUID(),
  TENANT,
  offerId,
  "university-diploma",
  "https://schemas.example/schemas/university-diploma/v1",
  hex(),
  randomBytes(32).toString("base64url"),
  null,
  "active",
  iso(),
  iso(365 * 86_400_000),
  null,
  null,
  null,
  null,
  LIST_ID,
  credentialIndex++,
  randomBytes(32).toString("base64url"),
];

const SESSION_INSERT = `insert into ${V}."verification_sessions" ("id", "tenant", "request_uri_id", "state", "nonce", "client_id", "request_kid", "response_mode", "dcql_query", "client_metadata", "redirect_uri", "encryption_kid", "encryption_public_jwk", "signing_key_envelope", "encryption_key_envelope", "status", "verification_mode", "check_results", "presentation_metadata", "created_at", "submitted_at", "verified_at", "expires_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9::json, $10::json, $11, $12, $13::json, $14, $15, $16, $17, $18::jsonb, $19::json, $20, $21, $22, $23::timestamptz + make_interval(secs => coalesce(least($24::integer, ((select min("session_ttl_seconds") as "ttl" from ${V}."verifier_policies" where "tenant" = $25))), $26::integer))) returning "expires_at"`;
const VERIFIER_DID = "did:key:z6Mkns7e8puzkPhXb7PCft2brKTvQMmeq75kgzArzF4HVTRL";
const DCQL =
  '{"credentials":[{"id":"pid","format":"dc+sd-jwt","meta":{"vct_values":["https://schemas.attesto.test/schemas/person-identification-data/v1"]},"claims":[{"path":["given_name"]},{"path":["family_name"]}]}]}';
interface Session {
  id: string;
  requestUriId: string;
  state: string;
}
const newSession = (): Session => ({
  id: randomUUID(),
  requestUriId: randomBytes(24).toString("base64url"),
  state: randomBytes(32).toString("base64url"),
});
const sessionValues = (session: Session): Value[] => [
  session.id,
  TENANT,
  session.requestUriId,
  session.state,
  randomBytes(32).toString("base64url"),
  `decentralized_identifier:${VERIFIER_DID}`,
  `${VERIFIER_DID}#z6Mkns7e8puzkPhXb7PCft2brKTvQMmeq75kgzArzF4HVTRL`,
  "direct_post",
  DCQL,
  null,
  null,
  null,
  null,
  sealed(140),
  null,
  "pending",
  null,
  null,
  null,
  iso(),
  null,
  null,
  iso(),
  null,
  TENANT,
  300,
];
const SESSION_BY_REQUEST_URI = `select * from ${V}."verification_sessions" where "request_uri_id" = $1`;
const SESSION_WITH_POLICIES = `select ${V}."verification_sessions".*, (select coalesce(json_agg(agg), '[]') from (select ${V}."verifier_policies".* from ${V}."verifier_policies" where ${V}."verifier_policies"."tenant" = ${V}."verification_sessions"."tenant" order by ${V}."verifier_policies"."name") as agg) as "tenant_policies" from ${V}."verification_sessions" where "state" = $1`;
const SESSION_SUBMIT = `update ${V}."verification_sessions" set "status" = $1, "verification_mode" = $2, "submitted_at" = $3 where "id" = $4 and "status" = $5 and "expires_at" > $6`;
const SESSION_COMPLETE = `update ${V}."verification_sessions" set "status" = $1, "check_results" = $2::jsonb, "presentation_metadata" = $3::json, "verified_at" = $4, "signing_key_envelope" = $5, "encryption_key_envelope" = $6 where "id" = $7 and "status" = $8`;
const CHECK_RESULTS = JSON.stringify(
  Array.from({ length: 10 }, (_, i) => ({
    check: `check_${i}`,
    status: "success",
    reason_code: "valid",
    message: "a sentence of about eighty characters explaining the outcome of this one check",
  })),
);
const PRESENTATION =
  '{"claims":{"family_name":"Lovelace","given_name":"Ada"},"credential_metadata":[{"issuer":"did:key:z6MkrHa3dG8shuWiCgCUdo2YXhxE7Xp2y9fEGgdQqqfxMTHh","credential_type":["https://schemas.attesto.test/schemas/person-identification-data/v1"],"issued_at":"2026-11-25T10:33:21.000Z","expires_at":"2027-11-25T10:33:21.000Z"}]}';
const WEBHOOK_EVENT_AND_JOB = `WITH new_event AS (insert into "scheduler"."webhook_events" ("event_id", "dedupe_key", "tenant", "type", "body", "job_id", "created_at") values ($1, $2, $3, $4, $5, $6, $7) on conflict ("dedupe_key") do nothing returning "event_id"), job AS (${jobShape[0]}(CASE WHEN EXISTS (SELECT 1 FROM new_event) THEN $8 ELSE '[]' END)${jobShape[1]})
        SELECT (SELECT count(*) FROM new_event) AS created, (SELECT count(*) FROM job) AS queued`;
const webhookValues = async (): Promise<Value[]> => {
  const eventId = randomUUID();
  const jobId = randomUUID();
  const { payload } = await recordedJob(jobId, eventId);
  const body = JSON.stringify({ type: "verification.completed", session_id: randomUUID(), status: "completed" });
  return [
    eventId,
    `verification.completed:${randomUUID()}`,
    TENANT,
    "verification.completed",
    body,
    jobId,
    iso(),
    payload,
  ];
};
const SESSION_BY_ID = `select * from ${V}."verification_sessions" where "id" = $1`;

// --- data: one status list (2^17 entries, 2 bits), a configuration, a policy, earlier flows ----

const signingOfferId = randomUUID();
await run(OFFER_INSERT, offerValues(signingOfferId, hex()));
await pglite.query(
  `insert into ${I}."status_lists" ("id", "tenant", "signer", "signing_offer_id", "size", "bits", "statuses", "version", "created_at", "updated_at", "closed_at") values ($1, $2, $3, $4, 131072, 2, $5, 1, now(), now(), null)`,
  [LIST_ID, TENANT, SIGNER, signingOfferId, new Uint8Array(32_768)],
);

interface Flow {
  offerId: string;
  codeHash: string;
  session: Session;
}
/** One issuance's and one verification's writes, as the flows leave them. */
async function flow(): Promise<Flow> {
  const offerId = randomUUID();
  const codeHash = hex();
  await run(OFFER_INSERT, offerValues(offerId, codeHash));
  await run(OFFER_REDEEM, ["redeemed", iso(), null, codeHash, "offered", iso(), ""]);
  await run(USED_VALUE, ["auth_server:pre_authorized_code", hex(), iso(300_000), iso()]);
  await run(earlier.length % 2 ? RESERVATION : RESERVATION_PROBED, reservationValues(offerId));
  await run(CREDENTIAL_INSERT, credentialValues(offerId));
  const session = newSession();
  await run(SESSION_INSERT, sessionValues(session));
  await run(SESSION_SUBMIT, ["in_progress", "fail_fast", iso(), session.id, "pending", iso()]);
  await run(SESSION_COMPLETE, ["completed", CHECK_RESULTS, PRESENTATION, iso(), null, null, session.id, "in_progress"]);
  await run(WEBHOOK_EVENT_AND_JOB, await webhookValues());
  return { offerId, codeHash, session };
}
const PRIOR_FLOWS = Number(process.env.PRIOR_FLOWS ?? 5000);
const earlier: Flow[] = [];
for (let i = 0; i < PRIOR_FLOWS; i++) earlier.push(await flow());
// A list that has handed out more entries than the flows above (a development database kept for a
// while): ENTRIES more taken indexes, spread over the list.
const ENTRIES = Number(process.env.ENTRIES ?? 0);
if (ENTRIES > 0) {
  await pglite.query(
    `insert into ${I}."status_list_entries" ("list_id", "idx") select $1, (random() * 131071)::int from generate_series(1, $2) on conflict do nothing`,
    [LIST_ID, ENTRIES],
  );
}
await pglite.exec("CHECKPOINT");

if (process.env.WIRE) {
  wirePool = openDatabase({ url: `postgres://postgres@127.0.0.1:${port}/postgres`, schema: "public", poolMax: 4 }).pool;
}

// --- measuring ----------------------------------------------------------------------------

interface Case {
  name: string;
  text: string;
  /** Values for the i-th run; `setup` prepares what run i needs (not measured). */
  values(i: number): Value[] | Promise<Value[]>;
}
let fresh: { offerId: string; codeHash: string; session: Session }[] = [];
const pick = () => earlier[randomInt(0, earlier.length)] as Flow;
const cases: Case[] = [
  { name: "select 1 (baseline)", text: "select $1::int", values: (i) => [i] },
  { name: "issuer configuration by tenant", text: CONFIGURATION, values: () => [TENANT] },
  {
    name: "offer + signing key insert",
    text: OFFER_INSERT,
    values: (i) => offerValues(fresh[i]!.offerId, fresh[i]!.codeHash),
  },
  { name: "offer by id", text: OFFER_BY_ID, values: () => [pick().offerId] },
  {
    name: "offer redemption update",
    text: OFFER_REDEEM,
    values: (i) => ["redeemed", iso(), null, fresh[i]!.codeHash, "offered", iso(), ""],
  },
  {
    name: "used_values upsert",
    text: USED_VALUE,
    values: () => ["auth_server:pre_authorized_code", hex(), iso(300_000), iso()],
  },
  {
    name: "reservation, OFFSET 0 probe variant",
    text: RESERVATION_PROBED,
    values: (i) => reservationValues(fresh[i]!.offerId),
  },
  {
    name: "reservation (nonce, allowance, entry)",
    text: RESERVATION,
    values: (i) => reservationValues(fresh[i]!.offerId),
  },
  { name: "credential insert", text: CREDENTIAL_INSERT, values: (i) => credentialValues(fresh[i]!.offerId) },
  { name: "session insert", text: SESSION_INSERT, values: (i) => sessionValues(fresh[i]!.session) },
  { name: "session by request_uri_id", text: SESSION_BY_REQUEST_URI, values: () => [pick().session.requestUriId] },
  { name: "session + policies (json_agg)", text: SESSION_WITH_POLICIES, values: () => [pick().session.state] },
  {
    name: "session submit update",
    text: SESSION_SUBMIT,
    values: (i) => ["in_progress", "fail_fast", iso(), fresh[i]!.session.id, "pending", iso()],
  },
  {
    name: "session complete update",
    text: SESSION_COMPLETE,
    values: (i) => ["completed", CHECK_RESULTS, PRESENTATION, iso(), null, null, fresh[i]!.session.id, "in_progress"],
  },
  { name: "session by id", text: SESSION_BY_ID, values: () => [pick().session.id] },
  { name: "webhook event + pg-boss job", text: WEBHOOK_EVENT_AND_JOB, values: () => webhookValues() },
];

const only = process.env.ONLY;
const passes = Number(process.env.PASSES ?? 1);
const results: string[] = [];

for (let pass = 1; pass <= passes; pass++) {
  fresh = Array.from({ length: runs }, () => ({ offerId: randomUUID(), codeHash: hex(), session: newSession() }));
  for (const c of cases.filter((c, i) => i === 0 || !only || only.split(",").some((part) => c.name.includes(part)))) {
    const values: Value[][] = [];
    for (let i = 0; i < runs; i++) values.push(await c.values(i));
    if (!wirePool) await prepare(c.text);
    const before = process.cpuUsage();
    const started = performance.now();
    for (const v of values) await run(c.text, v);
    const cpu = process.cpuUsage(before);
    const wall = performance.now() - started;
    results.push(
      `${pass} ${c.name.padEnd(40)} ${((cpu.user + cpu.system) / runs).toFixed(1).padStart(7)} µs CPU  ${((wall * 1000) / runs).toFixed(1).padStart(7)} µs wall`,
    );
  }
}
console.log(
  `PGlite, ${runs} runs each, ${PRIOR_FLOWS} earlier flows, settings: ${extra.join(" ") || "(embedded defaults)"}`,
);
for (const line of results) console.log(line);

// Whether each prepared statement runs a generic plan or is planned again per execution.
const plans = await pglite.query<{ name: string; generic_plans: number; custom_plans: number }>(
  "select name, generic_plans, custom_plans from pg_prepared_statements",
);
const caseOf = new Map(
  [...names].map(([text, name]) => [name, cases.find((c) => c.text === text)?.name ?? text.slice(0, 40)]),
);
for (const row of plans.rows)
  console.log(`  ${caseOf.get(row.name)}: generic ${row.generic_plans}, custom ${row.custom_plans}`);

if (explain) {
  const probe = pick();
  const plans: [string, string, Value[]][] = [
    ["reservation", RESERVATION, reservationValues(randomUUID())],
    ["offer insert", OFFER_INSERT, offerValues(randomUUID(), hex())],
    ["session insert", SESSION_INSERT, sessionValues(newSession())],
    ["session + policies", SESSION_WITH_POLICIES, [probe.session.state]],
    [
      "session complete",
      SESSION_COMPLETE,
      ["completed", CHECK_RESULTS, PRESENTATION, iso(), null, null, pick().session.id, "completed"],
    ],
    ["credential insert", CREDENTIAL_INSERT, credentialValues(randomUUID())],
  ];
  // The plan a prepared statement settles on (after its first 5 custom plans) is the generic one.
  const literal = (v: Value) =>
    v === null ? "NULL" : `'${String(Array.isArray(v) ? toText(v) : v).replace(/'/g, "''")}'`;
  for (const [name, text] of [
    ["reservation, OFFSET 0 probe variant", RESERVATION_PROBED],
    ["reservation", RESERVATION],
  ] as const) {
    await pglite.exec("BEGIN");
    const generic = await pglite.query<{ "QUERY PLAN": string }>(
      `EXPLAIN (ANALYZE, BUFFERS) EXECUTE ${names.get(text)}(${reservationValues(randomUUID()).map(literal).join(", ")})`,
    );
    await pglite.exec("ROLLBACK");
    console.log(
      `\n--- ${name}: the prepared statement's plan\n${generic.rows.map((row) => row["QUERY PLAN"]).join("\n")}`,
    );
  }
  for (const [name, text, values] of plans) {
    await pglite.exec("BEGIN");
    const { rows } = await pglite
      .query<{ "QUERY PLAN": string }>(
        `EXPLAIN (ANALYZE, BUFFERS, WAL, VERBOSE false) ${text}`,
        values.map((v) => (Array.isArray(v) ? toText(v) : Buffer.isBuffer(v) ? v : v)) as unknown[],
      )
      .catch((error) => ({ rows: [{ "QUERY PLAN": String(error) }] }));
    await pglite.exec("ROLLBACK");
    console.log(`\n--- ${name}\n${rows.map((row) => row["QUERY PLAN"]).join("\n")}`);
  }
}

// PGBOSS=1: a job's life in pg-boss (send, fetch, complete) through the wire server, with pg-boss's
// own pg clients (every statement unnamed: parsed and planned per run) and with the services'
// NamingClient (named, planned once), in turns; CPU of this process (PGlite included) per job.
if (process.env.PGBOSS) {
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const bosses = {
    "pg-boss's clients": new PgBoss({
      connectionString: url,
      schema: "scheduler_jobs",
      max: 1,
      schedule: false,
      supervise: false,
    }),
    NamingClient: new PgBoss({
      connectionString: url,
      schema: "scheduler_jobs",
      max: 1,
      schedule: false,
      supervise: false,
      Client: NamingClient,
    } as ConstructorParameters<typeof PgBoss>[0]),
  };
  for (const b of Object.values(bosses)) {
    b.on("error", () => {});
    await b.start();
  }
  const jobs = Math.min(runs, 1000);
  for (let pass = 1; pass <= passes; pass++) {
    // The order alternates between passes (the job table grows as they run).
    const order = Object.entries(bosses);
    if (pass % 2 === 0) order.reverse();
    for (const [label, b] of order) {
      const before = process.cpuUsage();
      for (let i = 0; i < jobs; i++) {
        await b.send(QUEUE, { eventId: randomUUID() });
        const [job] = await b.fetch(QUEUE);
        if (job) await b.complete(QUEUE, job.id);
      }
      const cpu = process.cpuUsage(before);
      console.log(
        `${pass} pg-boss send + fetch + complete, ${label.padEnd(20)} ${((cpu.user + cpu.system) / jobs).toFixed(1).padStart(7)} µs CPU per job`,
      );
    }
  }
  const named = await pglite.query<{ statement: string; generic_plans: number; custom_plans: number }>(
    "select statement, generic_plans, custom_plans from pg_prepared_statements where statement like '%scheduler_jobs%'",
  );
  for (const row of named.rows)
    console.log(
      `  named: ${row.statement.replace(/\s+/g, " ").slice(0, 90)}: generic ${row.generic_plans}, custom ${row.custom_plans}`,
    );
  for (const b of Object.values(bosses)) await b.stop({ graceful: false, close: true });
}

await boss.stop({ graceful: false, close: true });
await server.close();
await pglite.close();
rmSync(dataDir, { recursive: true, force: true });
