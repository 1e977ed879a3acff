import net from "node:net";
import { StartupError } from "./startup-error.js";

export interface PortClaim {
  host: string;
  port: number;
  /** Who wants it, e.g. "auth-server public". */
  owner: string;
}

function isFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") resolve(false);
      else reject(new StartupError(`cannot listen on ${host}:${port}`, { cause: error }));
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/**
 * Fails before anything starts when a port is taken (another Attesto, a dev server), naming every
 * busy port at once rather than the first one after seconds of start-up.
 */
export async function assertPortsFree(claims: readonly PortClaim[]): Promise<void> {
  const seen = new Map<number, string>();
  for (const claim of claims) {
    const other = seen.get(claim.port);
    if (other) throw new StartupError(`port ${claim.port} is configured twice (${other} and ${claim.owner})`);
    seen.set(claim.port, claim.owner);
  }
  const free = await Promise.all(claims.map((c) => isFree(c.host, c.port)));
  const busy = claims.filter((_, i) => !free[i]).map((c) => `${c.port} (${c.owner})`);
  if (busy.length > 0) {
    throw new StartupError(
      `port${busy.length > 1 ? "s" : ""} already in use on ${claims[0]?.host}: ${busy.join(", ")}. ` +
        "Is Attesto already running? Stop it, or set PORT_OFFSET (e.g. PORT_OFFSET=10000) to move every port.",
    );
  }
}
