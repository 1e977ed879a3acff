import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The root README and every page in `docs/` point only at things that exist:
 * - every relative Markdown link `[text](target)` resolves (from the page's folder) to a file or
 *   folder of the repository, and a `#anchor` on a Markdown target (or on the page itself) names
 *   one of its headings (GitHub's heading ids);
 * - every path in backticks that starts with a top-level folder or file of the repository
 *   (`services/…`, `test/…`, `docs/…`, `.ci/run`, …) exists, resolved from the repository root.
 *   Placeholders (`services/<name>/src`), globs and folders Git ignores (`dist/`, `.attesto/`,
 *   `node_modules/`) are not paths of the repository and are left alone.
 * Fenced code blocks are skipped: the walkthrough's commands are run by `test/e2e/readme-walkthrough.test.ts`.
 */
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const pages = [
  "README.md",
  ...readdirSync(join(repoRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** Top-level folders Git ignores (`.gitignore` lines ending in `/`), and anything under them. */
const ignoredPrefixes = readFileSync(join(repoRoot, ".gitignore"), "utf8")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line.endsWith("/") && !line.startsWith("#"));

const topLevel = new Set(
  readdirSync(repoRoot).filter((name) => name !== ".git" && !ignoredPrefixes.includes(`${name}/`)),
);

/** The page without its fenced code blocks (their lines become empty, so line numbers stay). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line;
  });
}

/** GitHub's heading ids of a Markdown file: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .toLowerCase()
      .replace(/<[^>]*>/g, "")
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** A backtick span that names a path of the repository, or undefined. */
function repositoryPath(span: string): string | undefined {
  if (!/^\.?[\w@.-]+(\/[\w@.-]+)*\/?$/.test(span) || !span.includes("/")) return undefined;
  if (ignoredPrefixes.some((prefix) => span.startsWith(prefix))) return undefined;
  const first = span.split("/")[0]!;
  return topLevel.has(first) ? span : undefined;
}

describe.each(pages)("%s", (page) => {
  const file = join(repoRoot, page);
  const lines = prose(readFileSync(file, "utf8"));

  it("links only to files and headings that exist", () => {
    const broken: string[] = [];
    lines.forEach((line, index) => {
      const withoutCode = line.replace(/`[^`]*`/g, "``");
      for (const match of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const link = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:, ...
        const [target, anchor] = link.split("#") as [string, string | undefined];
        const targetFile = target === "" ? file : resolve(dirname(file), decodeURIComponent(target));
        const where = `${page}:${index + 1} ${link}`;
        if (!existsSync(targetFile) || !targetFile.startsWith(repoRoot)) {
          broken.push(`${where}: ${relative(repoRoot, targetFile)} does not exist`);
          continue;
        }
        if (anchor && targetFile.endsWith(".md") && !anchorsOf(readFileSync(targetFile, "utf8")).has(anchor)) {
          broken.push(`${where}: no heading #${anchor}`);
        }
      }
    });
    expect(broken).toEqual([]);
  });

  it("names only repository paths that exist", () => {
    const missing: string[] = [];
    lines.forEach((line, index) => {
      for (const match of line.matchAll(/`([^`\n]+)`/g)) {
        const path = repositoryPath(match[1]!);
        if (path && !existsSync(join(repoRoot, path))) missing.push(`${page}:${index + 1} ${path}`);
      }
    });
    expect(missing).toEqual([]);
  });
});

describe("the link check itself", () => {
  it("recognises repository paths and leaves placeholders, globs and ignored folders alone", () => {
    expect(repositoryPath("services/lib/runtime/src/http/")).toBe("services/lib/runtime/src/http/");
    expect(repositoryPath(".ci/run")).toBe(".ci/run");
    expect(repositoryPath("services/<name>/src")).toBeUndefined();
    expect(repositoryPath("services/lib/runtime/src/http/outbound-*")).toBeUndefined();
    expect(repositoryPath("dist/start/")).toBeUndefined();
    expect(repositoryPath("@attesto/runtime/errors")).toBeUndefined();
    expect(repositoryPath("/v1/offers")).toBeUndefined();
  });

  it("computes GitHub's heading ids", () => {
    const anchors = anchorsOf(
      "# Attesto\n## Walkthrough: from zero to a webhook\n### All-in-one launcher (`npm start`)\n## A\n## A\n",
    );
    expect([...anchors]).toEqual([
      "attesto",
      "walkthrough-from-zero-to-a-webhook",
      "all-in-one-launcher-npm-start",
      "a",
      "a-1",
    ]);
  });
});
