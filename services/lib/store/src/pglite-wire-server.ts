import { createServer, type ListenOptions, type Server, type Socket } from "node:net";
import type { PGlite } from "@electric-sql/pglite";
import { ResponseScanner, SharedStatements } from "./pglite-shared-statements.js";

/**
 * Serves one PGlite instance over the PostgreSQL wire protocol to many clients.
 *
 * PGlite is a single backend, so clients take turns. A turn is a whole protocol exchange: the
 * startup packet, a simple Query, or an extended-protocol batch up to Sync (Parse/Bind/Execute/
 * Sync). Interleaving individual messages of different clients (as @electric-sql/pglite-socket
 * 0.2 does) lets one client's Bind hit another's unnamed statement ("portal does not exist").
 * While a client is inside a transaction, only that client's turns run, as with row locks.
 * Named prepared statements are shared between the clients: see pglite-shared-statements.ts.
 */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
/** Message types that end a turn: Sync, simple Query, Flush, Terminate. */
const TURN_ENDS = new Set(["S", "Q", "H", "X"]);

interface Turn {
  client: Client;
  bytes: Uint8Array;
  /** The type of the message that ended the turn, or "startup" for the startup packet. */
  end: string;
}

class Client {
  private buffer: Buffer = Buffer.alloc(0);
  private pending: Buffer[] = [];
  private started = false;
  closed = false;
  /** The statement names this client was told are parsed (its holds in SharedStatements). */
  readonly held = new Set<string>();
  /** A turn ended by Flush failed: the backend skips this client's messages up to its Sync. */
  inError = false;

  constructor(
    readonly socket: Socket,
    private readonly enqueue: (turn: Turn) => void,
  ) {}

  receive(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    while (!this.closed) {
      if (!this.started) {
        if (this.buffer.length < 8) return;
        const length = this.buffer.readInt32BE(0);
        const code = this.buffer.readInt32BE(4);
        if (this.buffer.length < length) return;
        const packet = this.buffer.subarray(0, length);
        this.buffer = this.buffer.subarray(length);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          this.socket.write("N");
        } else if (code === CANCEL_REQUEST) {
          this.socket.end();
          return;
        } else if (code === PROTOCOL_3) {
          this.started = true;
          this.enqueue({ client: this, bytes: new Uint8Array(packet), end: "startup" });
        } else {
          this.socket.destroy();
          return;
        }
        continue;
      }
      if (this.buffer.length < 5) return;
      const length = 1 + this.buffer.readInt32BE(1);
      if (this.buffer.length < length) return;
      const type = String.fromCharCode(this.buffer[0] ?? 0);
      this.pending.push(this.buffer.subarray(0, length));
      this.buffer = this.buffer.subarray(length);
      if (type === "X") {
        this.pending = [];
        this.socket.end();
        return;
      }
      if (TURN_ENDS.has(type)) {
        this.enqueue({ client: this, bytes: new Uint8Array(Buffer.concat(this.pending)), end: type });
        this.pending = [];
      }
    }
  }
}

export class PgliteWireServer {
  private server: Server | undefined;
  private readonly queue: Turn[] = [];
  private readonly clients = new Set<Client>();
  /** The client whose open transaction holds the backend. */
  private owner: Client | undefined;
  private running = false;
  private readonly statements = new SharedStatements();
  /** A hold ended: some prepared statements may have no holder left (deallocated between turns). */
  private released = false;
  /** SQL that may have dropped prepared statements ran: re-read pg_prepared_statements. */
  private stale = false;

  constructor(private readonly db: PGlite) {}

  /** Listens on TCP `host`:`port` (0: any free port); answers the port. */
  async listen(host: string, port: number): Promise<number> {
    const address = await this.open({ host, port });
    return typeof address === "object" && address ? address.port : port;
  }

  /** Listens on the Unix domain socket `path`. */
  async listenOnSocket(path: string): Promise<void> {
    await this.open({ path });
  }

  private async open(options: ListenOptions): Promise<ReturnType<Server["address"]>> {
    await this.db.waitReady;
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options, () => resolve());
    });
    return server.address();
  }

  async close(): Promise<void> {
    for (const client of this.clients) client.socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    const client = new Client(socket, (turn) => {
      this.queue.push(turn);
      void this.drain();
    });
    this.clients.add(client);
    socket.on("data", (chunk: Buffer) => client.receive(chunk));
    socket.on("error", () => socket.destroy());
    socket.on("close", () => void this.disconnect(client));
  }

  private async disconnect(client: Client): Promise<void> {
    client.closed = true;
    this.clients.delete(client);
    this.releaseAll(client, [...client.held]);
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i]?.client === client) this.queue.splice(i, 1);
    if (this.owner === client) {
      this.owner = undefined;
      if (this.db.isInTransaction()) await this.db.exec("ROLLBACK").catch(() => {});
    }
    void this.drain();
  }

  private releaseAll(client: Client, names: string[]): void {
    for (const name of names) {
      if (!client.held.delete(name)) continue;
      this.statements.release(name);
      this.released = true;
    }
  }

  /** Runs queued turns one at a time, keeping an open transaction's client in front. */
  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        if (!this.owner) await this.tidyStatements();
        if (this.queue.length === 0) return;
        const index = this.owner ? this.queue.findIndex((t) => t.client === this.owner) : 0;
        if (index < 0) return; // wait for the transaction's owner to speak
        const [turn] = this.queue.splice(index, 1);
        if (!turn || turn.client.closed) continue;
        await this.run(turn);
        this.owner = this.db.isInTransaction() ? turn.client : undefined;
      }
    } finally {
      this.running = false;
    }
  }

  private async run({ client, bytes, end }: Turn): Promise<void> {
    const { socket } = client;
    const write = (data: Uint8Array) => {
      if (socket.writable && data.length > 0) socket.write(Buffer.from(data));
    };
    if (end === "startup") {
      await this.db.runExclusive(() => this.db.execProtocolRawStream(bytes, { onRawData: write }));
      return;
    }
    const turn = this.statements.rewrite(bytes, client.inError);
    if (turn.mayDeallocate) this.stale = true;
    const scanner = new ResponseScanner();
    if (turn.prefix) write(turn.prefix);
    await this.db.runExclusive(() =>
      this.db.execProtocolRawStream(turn.bytes, {
        onRawData: (data) => {
          scanner.scan(data);
          write(data);
        },
      }),
    );
    // After an error the backend ignores messages up to the next Sync, even in later turns.
    client.inError = end === "S" ? false : client.inError || (end === "H" && scanner.failed);
    for (const name of this.statements.learn(turn, scanner.parsed)) {
      if (client.held.has(name)) continue;
      client.held.add(name);
      this.statements.hold(name);
    }
    this.releaseAll(client, turn.released);
  }

  /**
   * Between turns, outside any transaction: deallocates the statements no client holds, and
   * re-reads the backend's statements after SQL that may have dropped some.
   */
  private async tidyStatements(): Promise<void> {
    if (this.stale) {
      this.stale = false;
      const listed = await this.db
        .query<{ name: string }>("SELECT name FROM pg_prepared_statements")
        .catch(() => undefined);
      if (listed) this.statements.retain(new Set(listed.rows.map((row) => row.name)));
    }
    if (this.released) {
      this.released = false;
      for (const name of this.statements.orphans()) {
        // Forgotten only once gone: a name left prepared stays shareable (and held by its next user).
        const gone = await this.db.exec(`DEALLOCATE "${name.replaceAll('"', '""')}"`).then(
          () => true,
          () => false,
        );
        if (gone) this.statements.forget(name);
      }
    }
  }
}
