import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { TargetRefusedError } from "../domain/deliver-webhook.js";

/**
 * Webhook target validation, at delivery time. The host is resolved once, every address it
 * resolves to is checked, and the request then connects to the checked address (never resolving
 * again), so a DNS answer that changes between check and connect (DNS rebinding) cannot reach an
 * internal address. Not allowed unless WEBHOOK_ALLOW_PRIVATE_TARGETS: loopback, private,
 * link-local (cloud metadata), carrier-grade NAT, unspecified, multicast, reserved and
 * documentation ranges, and IPv6 forms embedding such IPv4 addresses.
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 96], // unspecified, loopback, IPv4-compatible
  ["100::", 64], // discard
  ["2001::", 32], // Teredo
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

/** The 16-bit groups of an IPv6 address (with `::` expanded and a dotted IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().split("%")[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill("0");
  return [...left, ...fill, ...right].map((group) => Number.parseInt(group, 16));
}

/** The IPv4 address inside an IPv4-mapped (::ffff:0:0/96) or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  const mapped = g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0);
  if (!mapped && !nat64) return undefined;
  return [g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255].join(".");
}

/** Whether an IP address is a public unicast address a webhook may target. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, "ipv4");
  if (family !== 6) return false;
  const ipv4 = embeddedIpv4(address);
  if (ipv4 !== undefined) return isPublicAddress(ipv4);
  return !blocked.check(address.split("%")[0]!, "ipv6");
}

export interface ResolvedTarget {
  url: URL;
  /** The address the request connects to. */
  address: string;
  family: 4 | 6;
}

export type Lookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Parses and resolves a webhook URL. Throws TargetRefusedError for a URL that is not http(s),
 * carries credentials, or (unless `allowPrivate`) resolves to any non-public address; DNS
 * failures are ordinary errors (retried).
 */
export async function resolveWebhookTarget(
  rawUrl: string,
  options: { allowPrivate: boolean; lookup?: Lookup },
): Promise<ResolvedTarget> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new TargetRefusedError("webhook URL is not a valid URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TargetRefusedError("webhook URL must use http or https");
  }
  if (url.username || url.password) throw new TargetRefusedError("webhook URL must not carry credentials");
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await (options.lookup ?? systemLookup)(host);
  if (addresses.length === 0) throw new Error(`webhook host ${host} did not resolve`);
  if (!options.allowPrivate && addresses.some((entry) => !isPublicAddress(entry.address))) {
    throw new TargetRefusedError(`webhook target ${host} resolves to a non-public address (not allowed)`);
  }
  const [first] = addresses;
  return { url, address: first!.address, family: first!.family === 6 ? 6 : 4 };
}
