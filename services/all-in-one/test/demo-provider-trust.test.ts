import { describe, expect, it } from "vitest";
import { demoProviderTrust, isLoopbackHost } from "../src/demo-provider-trust.js";
import { planAddresses } from "../src/service-env.js";
import { platformServices } from "../src/services.js";

const addressesOn = (host: string, env: Record<string, string> = {}) =>
  planAddresses(platformServices, { host, portOffset: 0 }, env);

describe("the all-in-one's trust in the demo wallet provider (published private key)", () => {
  it("trusts it for the auth server only while every listener is bound to loopback", () => {
    for (const host of ["127.0.0.1", "localhost", "::1", "127.0.0.2"]) {
      expect(demoProviderTrust(addressesOn(host), {})).toEqual({
        decision: "loopback",
        env: { AUTH_SERVER_CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER: "true" },
      });
    }
  });

  it("leaves it off when any listener faces the network, naming those services", () => {
    expect(demoProviderTrust(addressesOn("0.0.0.0"), {})).toMatchObject({ decision: "exposed" });
    expect(demoProviderTrust(addressesOn("::"), {})).toMatchObject({ decision: "exposed" });
    // One service moved to a public interface is enough.
    const oneExposed = demoProviderTrust(addressesOn("127.0.0.1", { HOLDER_HOST: "192.0.2.10" }), {});
    expect(oneExposed).toEqual({ decision: "exposed", exposed: ["holder"] });
  });

  it("lets an explicit setting decide, in either form", () => {
    for (const env of [
      { CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER: "false" },
      { AUTH_SERVER_CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER: "false" },
      { AUTH_SERVER_CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER: "true" },
    ]) {
      expect(demoProviderTrust(addressesOn("127.0.0.1"), env)).toEqual({ decision: "configured" });
      expect(demoProviderTrust(addressesOn("0.0.0.0"), env)).toEqual({ decision: "configured" });
    }
  });

  it("recognises loopback hosts only", () => {
    expect(["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"].map(isLoopbackHost)).toEqual(
      Array(6).fill(true),
    );
    expect(
      ["0.0.0.0", "::", "10.0.0.1", "192.168.1.2", "::ffff:127.0.0.1", "example.com", "127.example.com"].map(
        isLoopbackHost,
      ),
    ).toEqual(Array(7).fill(false));
  });
});
