import { describe, expect, it } from "vitest";
import { ownOutboundAllowance, withOwnAllowance } from "../src/outbound-allowance.js";

describe("the all-in-one's outbound allowance", () => {
  it("is the host:port of every public URL on loopback, nothing else", () => {
    expect(
      ownOutboundAllowance([
        { publicUrl: "http://localhost:8081" },
        { publicUrl: "http://127.0.0.1:18082" },
        { publicUrl: "http://[::1]:8083" },
        { publicUrl: "https://issuer.example.com" },
        { publicUrl: "http://192.168.1.5:8085" },
        { publicUrl: "http://localhost:8081" },
      ]),
    ).toEqual(["localhost:8081", "127.0.0.1:18082", "[::1]:8083"]);
  });

  it("adds to OUTBOUND_ALLOW_HOSTS as given", () => {
    expect(withOwnAllowance(undefined, ["localhost:8081"])).toBe("localhost:8081");
    expect(withOwnAllowance(" hooks.lan:9000 ,", ["localhost:8081"])).toBe("hooks.lan:9000,localhost:8081");
    expect(withOwnAllowance("localhost:8081", ["localhost:8081"])).toBe("localhost:8081");
  });
});
