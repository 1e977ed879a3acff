/** A process environment: variable name to value. */
export type Env = Record<string, string | undefined>;

/** Where one service listens and how the others reach it. */
export interface ServiceAddress {
  name: string;
  /** Its environment-variable prefix, e.g. SCHEMA_REGISTRY. */
  prefix: string;
  host: string;
  port: number;
  internalPort: number;
  /** URL under which clients reach the public API (PUBLIC_URL, else http://localhost:<port>). */
  publicUrl: string;
  /** URL of the internal Connect port, on this machine. */
  internalUrl: string;
  /** URLs of the local listeners (public and internal) that must answer GET /health. */
  healthUrls: { public: string; internal: string };
}
