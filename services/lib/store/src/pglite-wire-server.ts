import { createServer, type Server, type Socket } from "node:net";
import type { PGlite } from "@electric-sql/pglite";

/**
 * Serves one PGlite instance over the PostgreSQL wire protocol to many clients.
 *
 * PGlite is a single backend, so clients take turns. A turn is a whole protocol exchange: the
 * startup packet, a simple Query, or an extended-protocol batch up to Sync (Parse/Bind/Execute/
 * Sync). Interleaving individual messages of different clients (as @electric-sql/pglite-socket
 * 0.2 does) lets one client's Bind hit another's unnamed statement ("portal does not exist").
 * While a client is inside a transaction, only that client's turns run, as with row locks.
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
}

class Client {
  private buffer: Buffer = Buffer.alloc(0);
  private pending: Buffer[] = [];
  private started = false;
  closed = false;

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
          this.enqueue({ client: this, bytes: new Uint8Array(packet) });
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
        this.enqueue({ client: this, bytes: new Uint8Array(Buffer.concat(this.pending)) });
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

  constructor(private readonly db: PGlite) {}

  async listen(host: string, port: number): Promise<number> {
    await this.db.waitReady;
    this.server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      this.server?.once("error", reject);
      this.server?.listen(port, host, () => resolve());
    });
    const address = this.server.address();
    return typeof address === "object" && address ? address.port : port;
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
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i]?.client === client) this.queue.splice(i, 1);
    if (this.owner === client) {
      this.owner = undefined;
      if (this.db.isInTransaction()) await this.db.exec("ROLLBACK").catch(() => {});
      void this.drain();
    }
  }

  /** Runs queued turns one at a time, keeping an open transaction's client in front. */
  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const index = this.owner ? this.queue.findIndex((t) => t.client === this.owner) : 0;
        if (index < 0) return; // wait for the transaction's owner to speak
        const [turn] = this.queue.splice(index, 1);
        if (!turn || turn.client.closed) continue;
        const { socket } = turn.client;
        await this.db.runExclusive(() =>
          this.db.execProtocolRawStream(turn.bytes, {
            onRawData: (data) => {
              if (socket.writable && data.length > 0) socket.write(Buffer.from(data));
            },
          }),
        );
        this.owner = this.db.isInTransaction() ? turn.client : undefined;
      }
    } finally {
      this.running = false;
    }
  }
}
