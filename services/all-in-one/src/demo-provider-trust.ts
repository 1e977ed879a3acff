import { isIP } from "node:net";
import type { Env, ServiceAddress } from "./service-address.js";

/** The auth server's setting, as the launcher hands it to that service only. */
export const DEMO_PROVIDER_VARIABLE = "CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER";
const SERVICE_VARIABLE = `AUTH_SERVER_${DEMO_PROVIDER_VARIABLE}`;

/** Whether a listener bound to `host` is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare === "::1") return true;
  return isIP(bare) === 4 && bare.startsWith("127.");
}

export type DemoProviderTrust =
  /** The environment decides (either variable is set); the launcher adds nothing. */
  | { decision: "configured" }
  /** Every listener is on loopback: trusted for the auth server (the ready report warns). */
  | { decision: "loopback"; env: Record<string, string> }
  /** Some listener faces the network: left to the auth server's default (off). */
  | { decision: "exposed"; exposed: string[] };

/**
 * The demo wallet provider's private key is published, so trusting it lets anyone pass PAR as any
 * client. The all-in-one trusts it (so `npm start` and the demo wallet work without setup) only
 * while no listener is reachable from another machine, unless the environment says otherwise.
 */
export function demoProviderTrust(addresses: readonly ServiceAddress[], env: Env): DemoProviderTrust {
  if (env[DEMO_PROVIDER_VARIABLE] || env[SERVICE_VARIABLE]) return { decision: "configured" };
  const exposed = addresses.filter((address) => !isLoopbackHost(address.host)).map((address) => address.name);
  if (exposed.length > 0) return { decision: "exposed", exposed };
  return { decision: "loopback", env: { [SERVICE_VARIABLE]: "true" } };
}

/** The `<PREFIX>_<VAR>` variables the decision adds (the auth server's, while every listener is on loopback). */
export function demoProviderEnv(addresses: readonly ServiceAddress[], env: Env): Record<string, string> {
  const trust = demoProviderTrust(addresses, env);
  return trust.decision === "loopback" ? trust.env : {};
}
