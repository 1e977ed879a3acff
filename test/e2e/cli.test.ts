import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { tenantV1 } from "@attesto/proto";
import { createRpcClient, createServiceCredentialSigner } from "@attesto/runtime/rpc";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ACME_ISSUER, ACME_POLICY, tenantYaml } from "../../cli/test/support/manifests.js";
import { type LauncherProcess, repoRoot, startLauncher } from "./support/launcher.js";

/**
 * The `attesto` CLI against a real `npm start` (child processes both): apply, get, delete, webhooks,
 * apikey, tenants approve and dead-letters through the internal APIs, found with no configuration in the data folder;
 * ATTESTO_CONFIG_DIR applied at start-up and on change. Ports: the default ports (root README, "Services and ports") + 20600.
 */
const PORT_OFFSET = 20_600;
const run = promisify(execFile);

const ACME = [
  tenantYaml("acme", "acme-university"),
  `${ACME_ISSUER}      display: [{ name: ACME Diploma, locale: en-US }]\n`,
  ACME_POLICY,
].join("---\n");

/** A credential type the platform does not seed (`attesto types add`). */
const LIBRARY_CARD = {
  type: "library-card",
  version: "v1",
  name: "Library Card",
  description: "Membership of a public library.",
  status: "active",
  use_case: ["library_membership"],
  display: [{ locale: "en-US", name: "Library Card" }],
  schema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { member_number: { type: "string", minLength: 1 }, branch: { type: "string" } },
    required: ["member_number"],
  },
};

async function waitForFile(path: string, timeoutMs: number): Promise<string> {
  await vi.waitFor(
    () => {
      if (!existsSync(path)) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
    },
    { timeout: timeoutMs, interval: 100 },
  );
  return readFileSync(path, "utf8").trim();
}

// Each `attesto` run starts a tsx process: seconds each on a busy machine, so a test gets 2 minutes.
describe("attesto CLI against npm start", { timeout: 120_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "attesto-cli-e2e-"));
  const dataDir = join(root, "data");
  const configDir = join(root, "config");
  const keysDir = join(root, "keys");
  const acmeFile = join(root, "acme.yaml");
  let launcher: LauncherProcess;
  /** The API key of the tenant that applied through POST /v1/apply (approved by `attesto tenants approve`). */
  let pendingCollegeApiKey = "";

  const attestoWith = async (extraEnv: NodeJS.ProcessEnv, args: string[]) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ATTESTO_DATA_DIR: dataDir, ...extraEnv };
    delete env.SERVICE_IDENTITY_KEY;
    try {
      const { stdout, stderr } = await run(process.execPath, [join(repoRoot, "cli/bin/attesto.js"), ...args], {
        cwd: root,
        env,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const attesto = (...args: string[]) => attestoWith({}, args);

  beforeAll(async () => {
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, "first.yaml"), tenantYaml("from-config", "config-first"));
    writeFileSync(acmeFile, ACME);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT_OFFSET: String(PORT_OFFSET),
      ATTESTO_DATA_DIR: dataDir,
      ATTESTO_CONFIG_DIR: configDir,
      // Self-service tenants wait for `attesto tenants approve`; declared ones are approved by apply.
      TRUST_REGISTRY_TENANT_ADMISSION: "approval",
      LOG_LEVEL: "warn",
    };
    delete env.DATABASE_URL; // embedded PGlite, its own database in the data folder
    delete env.SERVICE_IDENTITY_PUBLIC_KEYS;
    launcher = await startLauncher({ env, readyTimeoutMs: 240_000 });
  }, 300_000);

  afterAll(async () => {
    await launcher?.stop("SIGTERM", 15_000).catch(() => {});
    rmSync(root, { recursive: true, force: true });
  });

  it("applies ATTESTO_CONFIG_DIR at start-up and again when a file is added", async () => {
    const first = await waitForFile(join(dataDir, "api-keys", "config-first.key"), 30_000);
    expect(first).toMatch(/^attesto_/);
    writeFileSync(join(configDir, "second.yaml"), tenantYaml("from-config-2", "config-second"));
    expect(await waitForFile(join(dataDir, "api-keys", "config-second.key"), 30_000)).toMatch(/^attesto_/);
  });

  it("apply creates, then reports unchanged; the API key is written once, mode 0600, and works", async () => {
    const created = await attesto("apply", "-f", acmeFile, "--api-key-dir", keysDir);
    expect(created).toMatchObject({
      code: 0,
      stdout: "tenant/acme created\nissuer/acme created\nverifierpolicy/acme created\n",
    });
    const keyFile = join(keysDir, "acme-university.key");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const apiKey = readFileSync(keyFile, "utf8").trim();

    const secrets = JSON.parse(readFileSync(join(dataDir, "secrets.json"), "utf8")) as Record<string, string>;
    const platform = JSON.parse(readFileSync(join(dataDir, "platform.json"), "utf8")) as {
      services: Record<string, { internalUrl: string }>;
    };
    const tenants = createRpcClient(tenantV1.TenantService, {
      baseUrl: platform.services["trust-registry"]!.internalUrl,
      audience: "trust-registry",
      // The credential issuer's identity: it is the one that authenticates API keys (caller policy).
      signer: createServiceCredentialSigner({
        privateKey: secrets.CREDENTIAL_ISSUER_SERVICE_IDENTITY_KEY!,
        caller: "credential-issuer",
      }),
      timeoutMs: 5_000,
    });
    expect((await tenants.authenticateApiKey({ apiKey })).outcome).toBe(tenantV1.ApiKeyOutcome.VALID);

    const again = await attesto("apply", "-f", acmeFile, "--api-key-dir", keysDir);
    expect(again).toMatchObject({
      code: 0,
      stdout: "tenant/acme unchanged\nissuer/acme unchanged\nverifierpolicy/acme unchanged\n",
    });
    expect(readFileSync(keyFile, "utf8").trim()).toBe(apiKey);
  });

  it("get shows the operator's status fields and conditions, as a table, JSON or YAML", async () => {
    const table = await attesto("get", "tenants");
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^NAME\s+NAMESPACE\s+TENANT\s+READY\s+REASON\n/);
    expect(table.stdout).toMatch(/\nacme\s+default\s+acme-university\s+True\s+Reconciled/);

    const json = await attesto("get", "issuer", "acme", "-o", "json");
    const issuer = JSON.parse(json.stdout) as {
      status: { tenantId: string; enforcement: string; conditions: unknown[] };
    };
    expect(issuer.status).toMatchObject({ tenantId: "acme-university", enforcement: "Enforced" });
    expect(issuer.status.conditions).toContainEqual(
      expect.objectContaining({ type: "Ready", status: "True", reason: "Applied" }),
    );

    const yaml = await attesto("get", "verifierpolicies", "-o", "yaml");
    expect(yaml.stdout).toMatch(/^apiVersion: v1\nkind: List\nitems:\n/);
    expect(yaml.stdout).toContain("policyDigest:");
  });

  it("webhooks list shows the declared endpoint; set refuses a tenant declared as YAML", async () => {
    expect(await attesto("webhooks", "list", "acme-university")).toMatchObject({
      code: 0,
      stdout: "https://hooks.acme-university.example/attesto\tcredential.notarized\n",
    });
    const refused = await attesto("webhooks", "set", "acme-university", "--url", "https://other.example/h");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("is declared by Tenant default/acme: change its spec.webhooks");
  });

  it("apikey rotate replaces the key; dead-letters list and retry answer", async () => {
    const before = readFileSync(join(keysDir, "acme-university.key"), "utf8");
    const rotated = await attesto("apikey", "rotate", "acme-university", "--api-key-dir", keysDir);
    expect(rotated.code).toBe(0);
    expect(readFileSync(join(keysDir, "acme-university.key"), "utf8")).not.toBe(before);
    expect(await attesto("dead-letters", "list")).toMatchObject({ code: 0, stdout: "" });
    expect(await attesto("dead-letters", "retry")).toMatchObject({
      code: 0,
      stdout: "retried 0 batch(es) (0 notarization(s)) and 0 webhook delivery(ies)\n",
    });
  });

  it("tenants approve admits a tenant that applied while admission needs approval", async () => {
    const tenantId = "pending-college";
    const applied = await fetch(`http://127.0.0.1:${8085 + PORT_OFFSET}/v1/apply`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "Pending College",
        tenant: tenantId,
        password: "Correct-Horse-9-Battery",
      }),
    });
    expect(applied.status).toBe(201);
    const { api_key: apiKey, status } = (await applied.json()) as { api_key: string; status: string };
    expect(status).toBe("PENDING");
    pendingCollegeApiKey = apiKey;
    const offer = () =>
      fetch(`http://127.0.0.1:${8082 + PORT_OFFSET}/v1/offers`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": apiKey },
        body: "{}",
      });
    const refused = await offer();
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain("Account is not approved");

    expect(await attesto("tenants", "approve", tenantId)).toMatchObject({
      code: 0,
      stdout: `tenant ${tenantId} approved\n`,
    });
    expect((await offer()).status).toBe(400); // past the API key: the empty body is what is refused now
    expect(await attesto("tenants", "approve", tenantId)).toMatchObject({
      code: 0,
      stdout: `tenant ${tenantId} was already approved\n`,
    });
    expect((await attesto("tenants", "approve", "no-such-tenant")).code).toBe(1);
  });

  it("types add: a tenant issues the new type at once, without a restart; again is unchanged; a new schema is refused", async () => {
    const issuerUrl = `http://127.0.0.1:${8082 + PORT_OFFSET}`;
    const apiKey = pendingCollegeApiKey;
    const offerLibraryCard = () =>
      fetch(`${issuerUrl}/v1/offers`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": apiKey },
        body: JSON.stringify({
          flow: "pre-authorized",
          credential: { config_id: "library-card", claims: { member_number: "L-1001", branch: "Central" } },
        }),
      });
    // The issuer now holds the tenant's configurations (cached), without library-card.
    const before = await offerLibraryCard();
    expect(before.status).toBe(400);
    expect(await before.text()).toContain("credential.config_id is not a credential configuration of this tenant");

    const typeFile = join(root, "library-card.v1.json");
    writeFileSync(typeFile, JSON.stringify(LIBRARY_CARD, null, 2));
    const added = await attesto("types", "add", "-f", typeFile);
    expect(added).toMatchObject({ code: 0, stderr: "" });
    const [registered, provisioned, ...rest] = added.stdout.split("\n");
    expect(registered).toBe(
      `credentialtype/library-card/v1 created http://localhost:${8086 + PORT_OFFSET}/schemas/library-card/v1`,
    );
    // Every active tenant of this platform got it (the ones applied and approved above).
    expect(provisioned).toMatch(/^[1-9]\d* credential configuration\(s\) added to tenants$/);
    expect(rest).toEqual([""]);
    const offered = await offerLibraryCard();
    expect(offered.status).toBe(201);
    expect(await offered.json()).toMatchObject({ credential_offer_uri: expect.stringContaining("/v1/offers/") });

    expect(await attesto("types", "add", "-f", typeFile)).toMatchObject({
      code: 0,
      stdout: `credentialtype/library-card/v1 unchanged http://localhost:${8086 + PORT_OFFSET}/schemas/library-card/v1\n0 credential configuration(s) added to tenants\n`,
    });
    writeFileSync(typeFile, JSON.stringify({ ...LIBRARY_CARD, schema: { ...LIBRARY_CARD.schema, required: [] } }));
    const refused = await attesto("types", "add", "-f", typeFile);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("already exists with a different schema");

    writeFileSync(typeFile, JSON.stringify({ ...LIBRARY_CARD, type: "Library Card", display: [] }));
    const invalid = await attesto("types", "add", "-f", typeFile);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toBe(
      `attesto: ${typeFile}: invalid credential type:\n  type: must be lowercase letters, digits, '.', '-' or '_'\n  display: expected array to contain at least 1 item(s)\n`,
    );
  });

  it("delete removes the Issuer and VerifierPolicy before the Tenant", async () => {
    const deleted = await attesto("delete", "-f", acmeFile);
    expect(deleted).toMatchObject({
      code: 0,
      stdout: "tenant/acme deleted\nissuer/acme deleted\nverifierpolicy/acme deleted\n",
    });
    const remaining = JSON.parse((await attesto("get", "tenants", "-o", "json")).stdout) as {
      items: Array<{ metadata: { name: string } }>;
    };
    expect(remaining.items.map((t) => t.metadata.name).sort()).toEqual(["from-config", "from-config-2"]);
  });

  it("applies and deletes the operator's own examples as they are", async () => {
    const examples = join(repoRoot, "operator/examples");
    const applied = await attesto("apply", "-f", examples, "--api-key-dir", keysDir);
    expect(applied).toMatchObject({
      code: 0,
      stdout:
        "issuer/acme-university created\ntenant/acme-university created\nsecret/acme-university-webhook created\nverifierpolicy/acme-university created\n",
    });
    expect(existsSync(join(keysDir, "acme-university.key"))).toBe(true);
    expect(await attesto("delete", "-f", examples)).toMatchObject({ code: 0 });
  });

  it("says clearly when the platform is not running", async () => {
    await launcher.stop("SIGTERM", 15_000);
    // platform.json is gone with the platform; name the address it had rather than the default port.
    expect(existsSync(join(dataDir, "platform.json"))).toBe(false);
    const url = `http://localhost:${9085 + PORT_OFFSET}`;
    const refused = await attestoWith({ TRUST_REGISTRY_INTERNAL_URL: url }, ["apply", "-f", acmeFile]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`the trust-registry is not reachable at ${url}: is the platform running?`);
  });
});
