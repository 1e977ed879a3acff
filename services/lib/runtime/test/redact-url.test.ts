import { redactUrl } from "@attesto/runtime/http";
import { describe, expect, it } from "vitest";

describe("URLs as logs show them", () => {
  it.each([
    ["/credential?access_token=eyJhbGciOi.x.y", "/credential?access_token=[redacted]"],
    [
      "/authorize?client_id=wallet&request_uri=urn:ietf:params:oauth:request_uri:abc",
      "/authorize?client_id=wallet&request_uri=[redacted]",
    ],
    ["/cb?code=abc&state=xyz", "/cb?code=[redacted]&state=[redacted]"],
    ["/x?pre-authorized_code=p&tx_code=1234", "/x?pre-authorized_code=[redacted]&tx_code=[redacted]"],
    ["/x?eyJhbGciOiJIUzI1NiJ9.secret", "/x?[redacted]"],
    ["/x?%ZZ=1", "/x?[redacted]"],
    ["/x?unknown=1&client_id=a", "/x?[redacted]&client_id=a"],
    ["/x?scope=openid&response_type=code&page=2", "/x?scope=openid&response_type=code&page=2"],
    ["/x?", "/x"],
    ["/plain/path", "/plain/path"],
    ["https://user:pw@issuer.example/a?code=1#frag", "https://issuer.example/a?code=[redacted]"],
    ["https://issuer.example/a#access_token=t", "https://issuer.example/a"],
  ])("%s -> %s", (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });
});
