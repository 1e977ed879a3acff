/**
 * A parser of the Prometheus text exposition format (version 0.0.4), strict enough that a
 * malformed scrape fails the test: `# HELP` / `# TYPE` lines, samples `name{label="value",...} value
 * [timestamp]` with escaped label values (`\\`, `\"`, `\n`).
 */

export type MetricType = "counter" | "gauge" | "histogram" | "summary" | "untyped";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES = new Set<MetricType>(["counter", "gauge", "histogram", "summary", "untyped"]);
/** Sample name suffixes that belong to the family without them. */
const SUFFIXES: Record<string, string[]> = { histogram: ["_bucket", "_sum", "_count"], summary: ["_sum", "_count"] };

function parseValue(text: string, line: number): number {
  // Prometheus reads these case-insensitively (prom-client writes NaN as "Nan").
  if (/^\+?inf$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-inf$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (/^nan$/i.test(text)) return Number.NaN;
  const value = Number(text);
  if (text === "" || Number.isNaN(value)) throw new Error(`line ${line}: bad sample value "${text}"`);
  return value;
}

function parseLabels(text: string, line: number): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 1; // after "{"
  for (;;) {
    while (text[i] === " ") i++;
    if (text[i] === "}") return { labels, rest: text.slice(i + 1) };
    const name = LABEL_NAME.exec(text.slice(i))?.[0];
    if (!name || text[i + name.length] !== "=" || text[i + name.length + 1] !== '"') {
      throw new Error(`line ${line}: bad label at "${text.slice(i)}"`);
    }
    i += name.length + 2;
    let value = "";
    for (;;) {
      const c = text[i];
      if (c === undefined) throw new Error(`line ${line}: unterminated label value`);
      i++;
      if (c === '"') break;
      if (c === "\\") {
        const escaped = text[i++];
        if (escaped === "n") value += "\n";
        else if (escaped === "\\" || escaped === '"') value += escaped;
        else throw new Error(`line ${line}: bad escape \\${escaped}`);
      } else value += c;
    }
    if (name in labels) throw new Error(`line ${line}: duplicate label ${name}`);
    labels[name] = value;
    if (text[i] === ",") i++;
    else if (text[i] !== "}") throw new Error(`line ${line}: expected , or } after label ${name}`);
  }
}

/** Families by name; samples are attached to their family (histogram `_bucket` etc. included). */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const family = (name: string) => {
    let found = families.get(name);
    if (!found) {
      found = { name, type: "untyped", help: "", samples: [] };
      families.set(name, found);
    }
    return found;
  };
  const familyOfSample = (sampleName: string) => {
    for (const candidate of families.values()) {
      if (candidate.name === sampleName) return candidate;
      if ((SUFFIXES[candidate.type] ?? []).some((suffix) => sampleName === candidate.name + suffix)) return candidate;
    }
    return family(sampleName);
  };
  text.split("\n").forEach((raw, index) => {
    const line = index + 1;
    const content = raw.trim();
    if (content === "") return;
    if (content.startsWith("#")) {
      const match = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s+(.*))?$/.exec(content);
      if (!match) return; // a plain comment
      const [, keyword, name, rest = ""] = match;
      if (!NAME.test(name!) || NAME.exec(name!)![0] !== name) throw new Error(`line ${line}: bad metric name ${name}`);
      if (keyword === "HELP") family(name!).help = rest;
      else {
        if (!TYPES.has(rest as MetricType)) throw new Error(`line ${line}: bad type "${rest}"`);
        family(name!).type = rest as MetricType;
      }
      return;
    }
    const name = NAME.exec(content)?.[0];
    if (!name) throw new Error(`line ${line}: no metric name in "${content}"`);
    let rest = content.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith("{")) ({ labels, rest } = parseLabels(rest, line));
    const [value, timestamp, extra] = rest.trim().split(/\s+/);
    if (extra !== undefined || (timestamp !== undefined && !/^-?\d+$/.test(timestamp))) {
      throw new Error(`line ${line}: trailing garbage in "${content}"`);
    }
    familyOfSample(name).samples.push({ name, labels, value: parseValue(value ?? "", line) });
  });
  return families;
}

/** The sum of a family's samples named `sampleName` whose labels include `labels`. */
export function sumOf(
  families: Map<string, MetricFamily>,
  sampleName: string,
  labels: Record<string, string> = {},
): number {
  return [...families.values()]
    .flatMap((f) => f.samples)
    .filter((s) => s.name === sampleName && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);
}
