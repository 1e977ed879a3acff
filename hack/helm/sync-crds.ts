// crds/ is the source of truth; the chart carries identical copies in charts/attesto/crds/ (Helm
// installs that folder before the templates).
// Usage: npx tsx hack/helm/sync-crds.ts [--check]   (--check fails when the copies drift)
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const sourceDir = join(root, "crds");
export const chartCrdsDir = join(root, "charts", "attesto", "crds");

export const crdFiles = () =>
  readdirSync(sourceDir)
    .filter((name) => name.endsWith(".yaml"))
    .sort();

/** What differs between crds/ and the chart's copies (empty when in sync). */
export function diffCrds(): string[] {
  const source = crdFiles();
  const copies = existsSync(chartCrdsDir) ? readdirSync(chartCrdsDir).filter((name) => name.endsWith(".yaml")) : [];
  const problems: string[] = [];
  for (const name of source) {
    const copy = join(chartCrdsDir, name);
    if (!existsSync(copy)) problems.push(`${name}: missing from the chart`);
    else if (!readFileSync(copy).equals(readFileSync(join(sourceDir, name)))) problems.push(`${name}: differs`);
  }
  for (const name of copies) if (!source.includes(name)) problems.push(`${name}: not in crds/`);
  return problems;
}

export function syncCrds(): void {
  mkdirSync(chartCrdsDir, { recursive: true });
  const source = crdFiles();
  for (const name of readdirSync(chartCrdsDir)) if (!source.includes(name)) rmSync(join(chartCrdsDir, name));
  for (const name of source) copyFileSync(join(sourceDir, name), join(chartCrdsDir, name));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--check")) {
    const problems = diffCrds();
    for (const problem of problems) console.error(problem);
    if (problems.length > 0) {
      console.error("run: npx tsx hack/helm/sync-crds.ts");
      process.exit(1);
    }
  } else {
    syncCrds();
    console.log(`synced ${crdFiles().length} CRDs into ${chartCrdsDir}`);
  }
}
