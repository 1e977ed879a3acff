/**
 * Named prepared statements shared by every client of the embedded database's wire server.
 *
 * Each pg client believes it has a session of its own, but all of them share PGlite's one
 * backend, where a statement name exists once. Our clients name a statement after a hash of its
 * text (named-statements.ts), so the same name means the same text on every connection; client B
 * parsing a name that client A has already prepared would otherwise fail with 42P05 (prepared
 * statement already exists). So the server keeps the names prepared in the backend and, before a
 * turn runs, rewrites it:
 *
 * - a Parse of a prepared name with the same text and parameter types, as the turn's FIRST
 *   message, is dropped and answered by the server (a ParseComplete written before the backend's
 *   response), since nothing can precede its reply;
 * - at another position its reply sits between the backend's replies to the messages around it,
 *   so instead it is rewritten to the unnamed statement (same text, so the same meaning) and the
 *   turn's later references to the name (Bind, Describe, Close) follow it. Only when the turn does
 *   not use the unnamed statement itself and renames no other Parse; otherwise it is sent
 *   unchanged and fails with 42P05, as it would on a real server (pg sends Parse first, always);
 * - a Parse of a prepared name with another text is sent unchanged (42P05, as above);
 * - Close of a prepared statement (pg sends one when binding the values fails) would deallocate it
 *   under the other clients, so it closes the unnamed statement instead (same CloseComplete
 *   reply) and only ends this client's hold on the name.
 *
 * Which Parses succeeded is read from the response: the backend answers the turn's messages in
 * order and skips the rest after an ErrorResponse, so the n-th ParseComplete belongs to the n-th
 * Parse sent; a failed Parse is never recorded.
 *
 * Lifetime: a name is held by the clients that were told it is parsed; when the last holder
 * disconnects (or Closes it), the server deallocates it, so the backend holds what its connected
 * clients use, as a real server would per connection. SQL that may drop statements behind the
 * server's back (DEALLOCATE, DISCARD) makes it re-read pg_prepared_statements after the turn;
 * clients that still believe in a dropped name get 26000, which our pg client retries (see
 * named-statements.ts).
 */

/** A frontend message of a turn: type byte and body (after the length word). */
interface Message {
  type: string;
  body: Buffer;
}

/** The turn as it will be sent, and what to learn from its response. */
export interface PreparedTurn {
  bytes: Uint8Array;
  /** Bytes the server answers before the backend's response (ParseComplete of a dropped Parse). */
  prefix: Buffer | undefined;
  /** The named statements the client is told are parsed without a ParseComplete from the backend. */
  acknowledged: string[];
  /** Each Parse sent, in order: its name and the rest of its body, or undefined for the unnamed one. */
  parses: ({ name: string; rest: Buffer } | undefined)[];
  /** Names whose Close this turn rewrote: the client's hold on them ends. */
  released: string[];
  /** The turn's SQL may deallocate statements (DEALLOCATE, DISCARD). */
  mayDeallocate: boolean;
}

export const PARSE_COMPLETE = Buffer.from([0x31, 0, 0, 0, 4]);
const DROPS_STATEMENTS = /\b(deallocate|discard)\b/i;

const splitMessages = (bytes: Uint8Array): Message[] => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const messages: Message[] = [];
  for (let at = 0; at + 5 <= buffer.length; ) {
    const length = buffer.readInt32BE(at + 1);
    messages.push({ type: String.fromCharCode(buffer[at] ?? 0), body: buffer.subarray(at + 5, at + 1 + length) });
    at += 1 + length;
  }
  return messages;
};

const encode = (type: string, body: Buffer): Buffer => {
  const header = Buffer.alloc(5);
  header[0] = type.charCodeAt(0);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};

/** The NUL-terminated string at `at` and the offset after its NUL. */
const cString = (body: Buffer, at: number): [string, number] => {
  const end = body.indexOf(0, at);
  return [body.toString("utf8", at, end), end + 1];
};

const UNNAMED = Buffer.from([0]);

/** A Bind's statement name, renamed to the unnamed statement. */
const renameBind = (body: Buffer): Buffer => {
  const [, afterPortal] = cString(body, 0);
  const [, afterStatement] = cString(body, afterPortal);
  return Buffer.concat([body.subarray(0, afterPortal), UNNAMED, body.subarray(afterStatement)]);
};

/** Describe/Close of a statement ('S' + name), renamed to the unnamed statement. */
const renameTarget = (body: Buffer): Buffer => Buffer.concat([body.subarray(0, 1), UNNAMED]);

export class SharedStatements {
  /** Name -> the rest of the Parse body that prepared it (text, parameter types). */
  private readonly prepared = new Map<string, Buffer>();
  /** Name -> how many clients hold it (were told it is parsed). */
  private readonly holders = new Map<string, number>();

  has(name: string): boolean {
    return this.prepared.has(name);
  }

  get size(): number {
    return this.prepared.size;
  }

  /** The turn to send for a client's `bytes`; `inError`: the backend skips to Sync for this client. */
  rewrite(bytes: Uint8Array, inError: boolean): PreparedTurn {
    const messages = splitMessages(bytes);
    const turn: PreparedTurn = {
      bytes,
      prefix: undefined,
      acknowledged: [],
      parses: [],
      released: [],
      mayDeallocate: false,
    };
    const usesUnnamed = messages.some((m) => m.type === "P" && m.body[0] === 0);
    const renamed = new Set<string>();
    const named = new Set<string>();
    const out: Buffer[] = [];
    let changed = false;
    messages.forEach((message, index) => {
      const { type, body } = message;
      if (type === "Q") {
        if (DROPS_STATEMENTS.test(body.toString("utf8"))) turn.mayDeallocate = true;
      } else if (type === "P") {
        const [name, afterName] = cString(body, 0);
        const rest = body.subarray(afterName);
        if (DROPS_STATEMENTS.test(cString(body, afterName)[0])) turn.mayDeallocate = true;
        const existing = name ? this.prepared.get(name) : undefined;
        if (existing && !inError && existing.equals(rest)) {
          if (index === 0) {
            turn.prefix = PARSE_COMPLETE;
            turn.acknowledged.push(name);
            changed = true;
            return;
          }
          if (!usesUnnamed && renamed.size === 0) {
            renamed.add(name);
            turn.acknowledged.push(name);
            turn.parses.push(undefined);
            out.push(encode(type, Buffer.concat([UNNAMED, rest])));
            changed = true;
            return;
          }
        }
        if (name) named.add(name);
        turn.parses.push(name ? { name, rest } : undefined);
      } else if (type === "B" && renamed.size > 0) {
        const [, afterPortal] = cString(body, 0);
        if (renamed.has(cString(body, afterPortal)[0])) {
          out.push(encode(type, renameBind(body)));
          changed = true;
          return;
        }
      } else if ((type === "D" || type === "C") && body[0] === 0x53 /* 'S' */) {
        const [name] = cString(body, 1);
        const shared = type === "C" && (this.prepared.has(name) || named.has(name));
        if (name && (renamed.has(name) || shared)) {
          if (type === "C") turn.released.push(name);
          out.push(encode(type, renameTarget(body)));
          changed = true;
          return;
        }
      }
      out.push(encode(type, body));
    });
    if (changed) turn.bytes = new Uint8Array(Buffer.concat(out));
    return turn;
  }

  /** Records the named Parses that the first `parsed` ParseCompletes acknowledged. */
  learn(turn: PreparedTurn, parsed: number): string[] {
    const held = [...turn.acknowledged];
    for (const parse of turn.parses.slice(0, parsed)) {
      if (!parse) continue;
      this.prepared.set(parse.name, Buffer.from(parse.rest));
      held.push(parse.name);
    }
    return held;
  }

  hold(name: string): void {
    this.holders.set(name, (this.holders.get(name) ?? 0) + 1);
  }

  release(name: string): void {
    const count = (this.holders.get(name) ?? 0) - 1;
    if (count > 0) this.holders.set(name, count);
    else this.holders.delete(name);
  }

  /** Prepared names no client holds any more: to deallocate (and forget) now. */
  orphans(): string[] {
    return [...this.prepared.keys()].filter((name) => !this.holders.has(name));
  }

  forget(name: string): void {
    this.prepared.delete(name);
  }

  /** Keeps only the names the backend still has (after SQL that may have dropped some). */
  retain(names: Set<string>): void {
    for (const name of this.prepared.keys()) if (!names.has(name)) this.prepared.delete(name);
  }
}

/**
 * Reads the backend's response stream of a turn, message by message across chunks: counts
 * ParseComplete ('1') until the first ErrorResponse ('E').
 */
export class ResponseScanner {
  parsed = 0;
  failed = false;
  private remaining = 0;
  private readonly header = Buffer.alloc(5);
  private headerLength = 0;

  scan(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.remaining > 0) {
        const skip = Math.min(this.remaining, chunk.length - at);
        at += skip;
        this.remaining -= skip;
        continue;
      }
      this.header[this.headerLength++] = chunk[at++] ?? 0;
      if (this.headerLength < 5) continue;
      this.headerLength = 0;
      this.remaining = this.header.readInt32BE(1) - 4;
      const type = this.header[0];
      if (type === 0x45 /* 'E' */) this.failed = true;
      else if (type === 0x31 /* '1' */ && !this.failed) this.parsed++;
    }
  }
}
