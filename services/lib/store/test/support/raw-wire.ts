import { connect, type Socket } from "node:net";
import { netAddressOf } from "../../src/embedded-socket.js";

/**
 * A minimal PostgreSQL wire-protocol client for tests that need messages pg does not send
 * (parameter types in Parse, Close of a statement, a Parse after other messages in one batch).
 */
export interface BackendMessage {
  type: string;
  body: Buffer;
}

const message = (type: string, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(5);
  header[0] = type.charCodeAt(0);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};
const cstr = (text: string) => Buffer.from(`${text}\0`);
const int16 = (value: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(value);
  return b;
};
const int32 = (value: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(value);
  return b;
};

export const wire = {
  parse: (name: string, text: string, types: number[] = []) =>
    message("P", cstr(name), cstr(text), int16(types.length), ...types.map(int32)),
  /** Bind of text-format values to the unnamed portal. */
  bind: (statement: string, values: string[]) =>
    message(
      "B",
      cstr(""),
      cstr(statement),
      int16(0),
      int16(values.length),
      ...values.flatMap((value) => [int32(Buffer.byteLength(value)), Buffer.from(value)]),
      int16(0),
    ),
  execute: () => message("E", cstr(""), int32(0)),
  closeStatement: (name: string) => message("C", Buffer.from("S"), cstr(name)),
  sync: () => message("S"),
  query: (text: string) => message("Q", cstr(text)),
};

export class RawClient {
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiting?.();
    });
  }

  static async connect(url: string): Promise<RawClient> {
    const socket = connect(netAddressOf(url));
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    const client = new RawClient(socket);
    const params = Buffer.concat([cstr("user"), cstr("postgres"), cstr("database"), cstr("postgres"), cstr("")]);
    socket.write(Buffer.concat([int32(params.length + 8), int32(196608), params]));
    await client.untilReady();
    return client;
  }

  /** Sends `messages` (ending with Sync or a simple Query) and reads the replies up to ReadyForQuery. */
  async send(...messages: Buffer[]): Promise<BackendMessage[]> {
    this.socket.write(Buffer.concat(messages));
    return this.untilReady();
  }

  private async untilReady(): Promise<BackendMessage[]> {
    const replies: BackendMessage[] = [];
    for (;;) {
      while (this.buffer.length >= 5 && this.buffer.length >= 1 + this.buffer.readInt32BE(1)) {
        const length = 1 + this.buffer.readInt32BE(1);
        const reply = { type: String.fromCharCode(this.buffer[0] ?? 0), body: this.buffer.subarray(5, length) };
        this.buffer = this.buffer.subarray(length);
        if (reply.type === "R" || reply.type === "S" || reply.type === "K") continue;
        if (reply.type === "Z") return replies;
        replies.push(reply);
      }
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.socket.end(message("X"), () => resolve()));
  }
}

/** Reply types in order ('1' ParseComplete, '2' BindComplete, 'D' DataRow, 'E' ErrorResponse, ...). */
export const typesOf = (replies: BackendMessage[]) => replies.map((reply) => reply.type).join("");

/** The first column of the DataRows, as text. */
export const valuesOf = (replies: BackendMessage[]) =>
  replies
    .filter((reply) => reply.type === "D")
    .map((reply) => reply.body.subarray(6, 6 + reply.body.readInt32BE(2)).toString("utf8"));

/** The SQLSTATE of the first ErrorResponse. */
export const errorCodeOf = (replies: BackendMessage[]) => {
  const error = replies.find((reply) => reply.type === "E");
  if (!error) return undefined;
  for (let at = 0; at < error.body.length && error.body[at] !== 0; ) {
    const end = error.body.indexOf(0, at + 1);
    if (error.body[at] === 0x43 /* 'C' */) return error.body.toString("utf8", at + 1, end);
    at = end + 1;
  }
  return undefined;
};
