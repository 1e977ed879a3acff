import http2 from "node:http2";

/** An idle connection is closed after this long (Connect's HTTP/2 session manager's default). */
const IDLE_CONNECTION_TIMEOUT_MS = 15 * 60 * 1000;

interface Connection {
  session: http2.ClientHttp2Session;
  /** Streams open on it: while any is, the connection keeps the process alive. */
  open: number;
}

/**
 * The one long-lived cleartext HTTP/2 connection of an h2c client to its callee (h2c-transport.ts),
 * opened on first use and opened again on the next call after it closed, failed or was told to go
 * away (the callee restarting): a dropped connection costs the calls in flight on it, never later
 * ones. An idle connection does not keep the process alive (it is unref'd while no stream is
 * open) and closes after 15 minutes without a stream.
 */
export class H2cSession {
  private current: Connection | undefined;

  constructor(private readonly authority: string) {}

  /** Opens a stream on the connection (a new one if there is none): `headers` must name `:method` and `:path`. */
  request(headers: http2.OutgoingHttpHeaders): http2.ClientHttp2Stream {
    const connection = this.connection();
    const stream = connection.session.request(headers);
    if (connection.open++ === 0) connection.session.ref();
    stream.once("close", () => {
      if (--connection.open === 0 && !connection.session.destroyed) connection.session.unref();
    });
    return stream;
  }

  /** Closes the connection (calls in flight finish first). */
  close(): void {
    this.current?.session.close();
    this.current = undefined;
  }

  private connection(): Connection {
    const current = this.current;
    if (current && !current.session.closed && !current.session.destroyed) return current;
    const session = http2.connect(this.authority);
    const connection: Connection = { session, open: 0 };
    const drop = () => {
      if (this.current === connection) this.current = undefined;
    };
    // A failed connection fails the streams on it, which report it to their callers.
    session.on("error", drop);
    session.once("close", drop);
    session.once("goaway", () => {
      drop();
      session.close();
    });
    session.setTimeout(IDLE_CONNECTION_TIMEOUT_MS, () => {
      if (connection.open === 0) session.close();
    });
    session.unref();
    this.current = connection;
    return connection;
  }
}
