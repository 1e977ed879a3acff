import pg from "pg";

/**
 * Every statement every `pg` client of this process sends, by the client's `application_name` (each
 * service's pool names itself, `@attesto/runtime/service`; unnamed clients, the test's own, are
 * left out), while `during(step)` runs: for tests that pin the database work of a whole flow
 * through the in-process platform. A commit here is a transaction that writes (what costs a WAL
 * flush): an explicit BEGIN … COMMIT, or one statement outside a transaction that inserts, updates
 * or deletes (also inside a `WITH`). Read-only statements commit nothing. A statement matching
 * `background` (timer-driven work, not the flow's), or a transaction that contains one, is left out,
 * and so is every statement of a client named in `backgroundApplications`.
 */
export interface ProcessWork {
  statements: number;
  commits: number;
  texts: string[];
}

const WRITES = /^\s*(insert|update|delete)\b|\bas\s+(materialized\s+)?\(\s*(insert|update|delete)\b/i;
const BEGIN = /^\s*begin\b/i;
const END = /^\s*(commit|rollback)\b/i;

interface Pending {
  texts: string[];
  writes: boolean;
  background: boolean;
}

export function recordAllStatements(options: { background?: RegExp; backgroundApplications?: string[] } = {}): {
  during(step: () => Promise<unknown>): Promise<Record<string, ProcessWork>>;
  stop(): void;
} {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  let recording: Record<string, ProcessWork> | undefined;
  const transactions = new WeakMap<object, Pending>();
  const isBackground = (text: string) => options.background?.test(text) ?? false;

  const add = (name: string, texts: string[], commits: number) => {
    if (!recording) return;
    const work = recording[name] ?? { statements: 0, commits: 0, texts: [] };
    recording[name] = work;
    work.statements += texts.length;
    work.commits += commits;
    work.texts.push(...texts.map((text) => text.replace(/"[a-z0-9_]+"\./g, "").slice(0, 70)));
  };

  proto.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string } | undefined;
    const text = typeof config === "string" ? config : (config?.text ?? "");
    const name = (this as unknown as { connectionParameters: { application_name?: string } }).connectionParameters
      .application_name;
    if (recording && text !== "" && name && !options.backgroundApplications?.includes(name)) {
      const open = transactions.get(this);
      if (BEGIN.test(text)) {
        transactions.set(this, { texts: [text], writes: false, background: false });
      } else if (open && END.test(text)) {
        transactions.delete(this);
        if (!open.background) add(name, [...open.texts, text], /^\s*commit/i.test(text) && open.writes ? 1 : 0);
      } else if (open) {
        open.texts.push(text);
        open.writes ||= WRITES.test(text);
        open.background ||= isBackground(text);
      } else if (!isBackground(text)) {
        add(name, [text], WRITES.test(text) ? 1 : 0);
      }
    }
    return original.apply(this, args);
  };
  return {
    async during(step) {
      const work: Record<string, ProcessWork> = {};
      recording = work;
      try {
        await step();
      } finally {
        recording = undefined;
      }
      return work;
    },
    stop() {
      proto.query = original;
    },
  };
}
