import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A counting TCP proxy in front of PostgreSQL (one per service, `--count-queries` only): it reads
 * the frontend side of the wire protocol and counts what each service asks, so the report can say
 * how many database round trips one flow costs. Round trips = Sync (end of an extended-protocol
 * query) + simple Query messages; statements = Execute + simple Query; transactions = BEGIN.
 * Nothing is changed on the way; SSL is not supported (the bench's URL has none).
 */
export interface QueryCounts {
  roundTrips: number;
  statements: number;
  transactions: number;
  connections: number;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

export class PgCounter {
  readonly counts: QueryCounts = { roundTrips: 0, statements: 0, transactions: 0, connections: 0 };
  /** How often each statement text ran (unnamed Parse, Bind of a named statement, simple query) since the last reset. */
  readonly texts = new Map<string, number>();
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly upstream: { host: string; port: number }) {
    this.server = createServer((client) => this.relay(client));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const address = this.server.address();
    this.port = typeof address === "object" && address ? address.port : 0;
    return this.port;
  }

  reset(): void {
    this.counts.roundTrips = 0;
    this.counts.statements = 0;
    this.counts.transactions = 0;
    this.texts.clear();
  }

  private noteText(text: string): void {
    this.texts.set(text, (this.texts.get(text) ?? 0) + 1);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: Socket): void {
    this.counts.connections++;
    const server = createConnection(this.upstream);
    this.sockets.add(client).add(server);
    const forget = () => {
      this.sockets.delete(client);
      this.sockets.delete(server);
    };
    client.on("close", forget);
    server.on("close", forget);
    client.on("error", () => server.destroy());
    server.on("error", () => client.destroy());
    server.pipe(client);
    let pending: Buffer = Buffer.alloc(0);
    let started = false;
    /** This connection's named statements: name -> text. */
    const named = new Map<string, string>();
    client.on("data", (chunk: Buffer) => {
      server.write(chunk);
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        if (!started) {
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(length);
          if (code !== SSL_REQUEST && code !== GSS_REQUEST) started = true;
          continue;
        }
        if (pending.length < 5) break;
        const type = String.fromCharCode(pending[0]!);
        const length = pending.readInt32BE(1);
        if (pending.length < length + 1) break;
        if (type === "S") this.counts.roundTrips++;
        if (type === "E") this.counts.statements++;
        if (type === "Q") {
          this.counts.roundTrips++;
          this.counts.statements++;
          const text = pending.subarray(5, length).toString("utf8").trim().toLowerCase();
          this.noteText(text);
          if (text.startsWith("begin") || text.startsWith("start transaction")) this.counts.transactions++;
        }
        if (type === "P") {
          // Parse: name\0query\0...: a BEGIN sent through the extended protocol counts too.
          const body = pending.subarray(5, length + 1);
          const nameEnd = body.indexOf(0);
          const text = body
            .subarray(nameEnd + 1, body.indexOf(0, nameEnd + 1))
            .toString("utf8")
            .trim()
            .toLowerCase();
          // A named (prepared) statement is parsed once per connection: its runs are its Binds.
          if (nameEnd > 0) named.set(body.toString("utf8", 0, nameEnd), text);
          else this.noteText(text);
          if (text.startsWith("begin") || text.startsWith("start transaction")) this.counts.transactions++;
        }
        if (type === "B") {
          // Bind: portal\0statement\0...
          const body = pending.subarray(5, length + 1);
          const portalEnd = body.indexOf(0);
          const text = named.get(body.toString("utf8", portalEnd + 1, body.indexOf(0, portalEnd + 1)));
          if (text !== undefined) this.noteText(text);
        }
        pending = pending.subarray(length + 1);
      }
    });
  }
}
