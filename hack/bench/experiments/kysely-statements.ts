/**
 * CPU per statement that kysely costs on the issuance and verification hot paths, split into
 * building the query, the schema transform (`withSchema`), compiling to SQL, and the rest (kysely's
 * execution and result path, the driver being a no-op that answers canned rows).
 *
 *   npm run bench:experiment -- kysely-statements [iterations]
 *
 * The statements are the real stores' (one call of a store function each), on a Kysely bound to a
 * schema as `openDatabase` binds it. Single-threaded and without I/O, so wall time is CPU time; the
 * total is checked against `process.cpuUsage`.
 */
import { hrtime } from "node:process";
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from "kysely";
import { createCredentialStore } from "../../../services/credential-issuer/src/store/credential.store.js";
import { createIssuanceReservationStore } from "../../../services/credential-issuer/src/store/issuance-reservation.store.js";
import { createIssuerConfigurationStore } from "../../../services/credential-issuer/src/store/issuer-configuration.store.js";
import { createOfferStore } from "../../../services/credential-issuer/src/store/offer.store.js";
import { createDidStore } from "../../../services/ledger/src/store/did.store.js";
import type { LedgerTables } from "../../../services/ledger/src/store/tables.js";
import { createReplayGuard } from "../../../services/lib/store/src/replay-guard.js";
import { createTenantStore } from "../../../services/trust-registry/src/store/tenant.store.js";
import { createVerificationSessionStore } from "../../../services/verifier/src/store/verification-session.store.js";
import { createVerifierPolicyStore } from "../../../services/verifier/src/store/verifier-policy.store.js";

/** A row every store's mapper accepts (fields it does not know are ignored). */
const ROW = {
  id: "00000000-0000-4000-8000-000000000000",
  tenant: "acme",
  trusted_x509_roots: [],
  tenant_policies: [],
  fresh_nonces: 1,
  reserved: 1,
  entries: [{ list_id: "l", idx: 1 }],
  value: "v",
  key_hash: "h",
};

/** The last statement the driver was given. */
let lastCompiled: CompiledQuery | undefined;

class CannedConnection implements DatabaseConnection {
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    lastCompiled = query;
    return { rows: [ROW as R], numAffectedRows: 1n };
  }
  // biome-ignore lint/correctness/useYield: never streamed here
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("not streamed");
  }
}

class CannedDriver implements Driver {
  readonly #connection = new CannedConnection();
  async init() {}
  async acquireConnection() {
    return this.#connection;
  }
  async beginTransaction() {}
  async commitTransaction() {}
  async rollbackTransaction() {}
  async releaseConnection() {}
  async destroy() {}
}

const db = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new CannedDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
}).withSchema("bench");

// Phase marks: building ends where the transform starts; compiling ends where execution starts.
const phases = { build: 0n, transform: 0n, compile: 0n, rest: 0n };
let mark = 0n;
let transformStart = 0n;
let compileStart = 0n;
const executor = db.getExecutor() as unknown as {
  transformQuery: (...args: unknown[]) => unknown;
  compileQuery: (...args: unknown[]) => unknown;
};
const transformQuery = executor.transformQuery.bind(executor);
const compileQuery = executor.compileQuery.bind(executor);
executor.transformQuery = (...args) => {
  transformStart = hrtime.bigint();
  phases.build += transformStart - mark;
  return transformQuery(...args);
};
executor.compileQuery = (...args) => {
  compileStart = hrtime.bigint();
  phases.transform += compileStart - transformStart;
  const compiled = compileQuery(...args);
  mark = hrtime.bigint();
  phases.compile += mark - compileStart;
  return compiled;
};

const now = new Date();
const later = new Date(now.getTime() + 60_000);
const configurations = createIssuerConfigurationStore(db);
const offerStore = createOfferStore(db);
const offer = {
  id: ROW.id,
  tenant: "acme",
  credentialConfigurationId: "employee",
  vct: "https://example.com/employee",
  claims: { given_name: "Ada", family_name: "Lovelace" },
  signing: { mode: "did", issuerDid: "did:web:x", issuerKid: "did:web:x#k", alg: "ES256", key: { thumbprint: "t" } },
  grant: { type: "pre-authorized", codeHash: "c", sealedCode: "s" },
  status: "offered",
  expiresAt: later,
  createdAt: now,
} as const;
const signingKey = {
  key: { tenant: "acme", kid: "did:web:x#k", did: "did:web:x", publicJwk: { kty: "EC" }, alg: "ES256" },
  at: now,
  privateKey: { id: "acme:t", sealed: "s" },
} as const;
const reservation = createIssuanceReservationStore(db);
const credentials = createCredentialStore(db);
const record = {
  id: ROW.id,
  tenant: "acme",
  offerId: ROW.id,
  credentialConfigurationId: "employee",
  vct: "https://example.com/employee",
  issuerJwtSha256: "d",
  holderKeyThumbprint: "t",
  status: "active",
  issuedAt: now,
  expiresAt: later,
  statusEntry: { listId: "l", idx: 1 },
} as const;
const replay = createReplayGuard(db, { now: () => now });
const tenants = createTenantStore(db, () => now);
const dids = createDidStore(db as unknown as Kysely<LedgerTables>);
const sessions = createVerificationSessionStore(db);
const policies = createVerifierPolicyStore(db);
const session = {
  id: ROW.id,
  tenant: "acme",
  requestUriId: "r",
  state: "s",
  nonce: "n",
  clientId: "x509_san_dns:verifier.example",
  responseMode: "direct_post.jwt",
  dcqlQuery: { credentials: [{ id: "c", format: "dc+sd-jwt" }] },
  encryptionKid: "e",
  encryptionPublicJwk: { kty: "EC" },
  signingKeyEnvelope: "s",
  encryptionKeyEnvelope: "e",
  status: "pending",
  createdAt: now,
  expiresAt: later,
} as const;

const STATEMENTS: Array<[name: string, run: () => Promise<unknown>]> = [
  ["issuer: configuration read", () => configurations.find("acme")],
  ["issuer: offer + signing key insert", () => offerStore.insert(offer, signingKey as never)],
  ["issuer: offer read (by id)", () => offerStore.findById(ROW.id)],
  ["issuer: offer redemption update", () => offerStore.redeemPreAuthorizedCode("c", undefined, "r", now)],
  ["issuer: offer read (by code hash)", () => offerStore.findByCodeHash("c")],
  [
    "issuer: issuance reservation",
    () =>
      reservation.reserve({
        nonces: [{ value: "n", expiresAt: later }],
        allowance: { key: { offerId: ROW.id, credentialConfigurationId: "employee" }, count: 1, limit: 1 },
        records: [record as never],
        now,
      }),
  ],
  ["issuer: credential insert", () => credentials.insertMany([record as never])],
  ["auth server: used value insert", () => replay.consume("minted", "r", later)],
  ["trust registry: API key lookup", () => tenants.findByApiKeyHash("h")],
  ["ledger: DID read", () => dids.find("did:ledger:x")],
  [
    "verifier: session insert",
    () => sessions.insert(session as never, { requestedSeconds: undefined, defaultSeconds: 300 }),
  ],
  ["verifier: policy read", () => policies.find("acme", "default")],
  ["verifier: session by request URI id", () => sessions.findByRequestUriId("r")],
  ["verifier: session + policies for presentation", () => sessions.findForPresentation({ state: "s" })],
  [
    "verifier: record verification",
    () =>
      sessions.recordVerification(ROW.id, {
        mode: "run_all",
        submittedAt: now,
        responseCodeHash: undefined,
        status: "verified",
        checkResults: [{ check: "signature", passed: true }],
        presentationMetadata: { vct: "x" },
        verifiedAt: now,
      } as never),
  ],
];

const iterations = Number(process.argv[2] ?? 4000);
// The replay guard's 1 % purge would add a second statement now and then.
Math.random = () => 0.5;

console.log(
  `${"statement".padEnd(46)} ${"build".padStart(6)} ${"schema".padStart(6)} ${"compile".padStart(7)} ${"rest".padStart(6)} ${"cpu".padStart(6)} ${"reused".padStart(6)}  (CPU µs per statement, ${iterations} runs)`,
);
const columns = ["build", "transform", "compile", "rest", "cpu", "reused"] as const;
const sums = { build: 0, transform: 0, compile: 0, rest: 0, cpu: 0, reused: 0 };
const f = (n: number) => n.toFixed(1).padStart(6);
for (const [name, run] of STATEMENTS) {
  for (let i = 0; i < iterations / 4; i++) await run(); // warm up
  phases.build = phases.transform = phases.compile = phases.rest = 0n;
  const cpu = process.cpuUsage();
  for (let i = 0; i < iterations; i++) {
    mark = hrtime.bigint();
    await run();
    phases.rest += hrtime.bigint() - mark;
  }
  const used = process.cpuUsage(cpu);
  const cpuUs = (used.user + used.system) / iterations;
  // The phases are timed by the wall clock (process.cpuUsage costs microseconds a call): shares of it,
  // applied to the CPU time of the whole loop, so preemption by other processes does not count.
  const wall = Number(phases.build + phases.transform + phases.compile + phases.rest);
  const share = (ns: bigint) => (cpuUs * Number(ns)) / wall;
  // The floor: the same compiled statement executed again (no building, no compiling).
  const compiled = lastCompiled!;
  for (let i = 0; i < iterations / 4; i++) await db.executeQuery(compiled);
  const before = process.cpuUsage();
  for (let i = 0; i < iterations; i++) await db.executeQuery(compiled);
  const reusedCpu = process.cpuUsage(before);
  const row = {
    build: share(phases.build),
    transform: share(phases.transform),
    compile: share(phases.compile),
    rest: share(phases.rest),
    cpu: cpuUs,
    reused: (reusedCpu.user + reusedCpu.system) / iterations,
  };
  for (const column of columns) sums[column] += row[column];
  console.log(`${name.padEnd(46)} ${columns.map((column) => f(row[column])).join(" ")}`);
}
console.log(`${"sum of the statements above".padEnd(46)} ${columns.map((column) => f(sums[column])).join(" ")}`);
