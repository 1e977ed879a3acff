import type { ServiceAddress } from "./service-address.js";

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The outbound request guard's allowance of the all-in-one: the `host:port` of each service's
 * public URL when that URL is on loopback (the default `http://localhost:<port>`), so the holder
 * reaches the issuer and authorization server and the verifier reaches issuer metadata. Nothing
 * else internal: not the internal ports, not other ports of this machine.
 */
export function ownOutboundAllowance(addresses: readonly Pick<ServiceAddress, "publicUrl">[]): string[] {
  const hosts = new Set<string>();
  for (const { publicUrl } of addresses) {
    const url = new URL(publicUrl);
    if (!LOOPBACK_HOSTS.test(url.hostname)) continue;
    hosts.add(`${url.hostname.toLowerCase()}:${url.port || (url.protocol === "https:" ? "443" : "80")}`);
  }
  return [...hosts];
}

/** OUTBOUND_ALLOW_HOSTS as given (if any) plus the platform's own loopback origins. */
export function withOwnAllowance(given: string | undefined, own: readonly string[]): string {
  const entries = (given ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  return [...new Set([...entries, ...own])].join(",");
}
