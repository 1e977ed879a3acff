import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  didKeyIssuer,
  didLedgerIssuer,
  nowSeconds,
  PID_VCT,
  type TestIssuer,
  x509Hierarchy,
} from "./support/credentials.js";
import {
  type OpenedSession,
  openSession,
  pidQuery,
  postPresentation,
  readResult,
  startTestVerifier,
  type TestVerifier,
} from "./support/test-verifier.js";
import { type PresentOptions, presentationFor, vpTokenOf } from "./support/wallet.js";

interface CheckResult {
  check: string;
  status: string;
  reason_code: string;
  message: string;
}

interface Result {
  status: string;
  check_results: CheckResult[];
  presentation_metadata?: unknown;
}

/** An issuer's public key as a JWKS entry. */
const ed25519Public = ({ privateJwk }: TestIssuer) => ({ kty: privateJwk.kty, crv: privateJwk.crv, x: privateJwk.x });

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const decode = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));

describe("verification checks: each failure names its check and reason", () => {
  let verifier: TestVerifier;
  let issuer: TestIssuer;
  beforeAll(async () => {
    verifier = await startTestVerifier();
    issuer = didKeyIssuer(verifier.edges);
  });
  afterAll(() => verifier.close());

  /** Opens a session, lets `build` make the vp_token, submits it in run_all mode and returns the result. */
  async function verify(
    build: (session: OpenedSession) => Promise<string>,
    sessionBody: Record<string, unknown> = {},
  ): Promise<Result> {
    const session = await openSession(verifier.app, sessionBody);
    const vpToken = await build(session);
    const response = await postPresentation(verifier.app, {
      state: session.request.state,
      vp_token: vpToken,
      verification_mode: "run_all",
    });
    expect(response.statusCode).toBe(200);
    // Reading the result needs the API key checked with the trust registry (on every request).
    const registryDown = verifier.edges.down.delete("trust-registry");
    try {
      return (await readResult(verifier.app, session.sessionId)).json();
    } finally {
      if (registryDown) verifier.edges.down.add("trust-registry");
    }
  }

  const present =
    (options: Partial<PresentOptions> = {}) =>
    (session: OpenedSession) =>
      presentationFor(session, { issuer, ...options }).then((vp) => vpTokenOf(vp));

  function expectCheck(result: Result, check: string, status: string, reasonCode: string) {
    // A session is completed exactly when no check failed (skipped checks do not fail it).
    const anyFailed = result.check_results.some((c) => c.status === "failed");
    expect(result.status).toBe(anyFailed ? "failed" : "completed");
    const found = result.check_results.find((c) => c.check === check);
    expect(found, `${check} in ${JSON.stringify(result.check_results)}`).toMatchObject({
      status,
      reason_code: reasonCode,
    });
    if (anyFailed) expect(result.presentation_metadata).toBeUndefined();
    else expect(result.presentation_metadata).toBeDefined();
  }

  describe("sd_jwt_structure", () => {
    it("an altered disclosure no longer matches any digest", async () => {
      const result = await verify(async (session) => {
        const vp = await presentationFor(session, { issuer });
        const parts = vp.split("~");
        const [salt, name] = decode(parts[1]!);
        parts[1] = encode([salt, name, "Mallory"]);
        return vpTokenOf(parts.join("~"));
      });
      expectCheck(result, "sd_jwt_structure", "failed", "unreferenced_disclosure");
      expectCheck(result, "issuer_signature", "skipped", "not_evaluable");
    });

    it("alg none is refused", async () => {
      const result = await verify(async (session) => {
        const vp = await presentationFor(session, { issuer });
        const [jwt, ...rest] = vp.split("~");
        const [header, payload] = jwt!.split(".");
        const unsigned = `${encode({ ...decode(header!), alg: "none" })}.${payload}.`;
        return vpTokenOf([unsigned, ...rest].join("~"));
      });
      expectCheck(result, "sd_jwt_structure", "failed", "malformed_sd_jwt");
      const none = await verify(async (session) => {
        const vp = await presentationFor(session, { issuer });
        const [jwt, ...rest] = vp.split("~");
        const [header, payload, signature] = jwt!.split(".");
        return vpTokenOf([`${encode({ ...decode(header!), alg: "none" })}.${payload}.${signature}`, ...rest].join("~"));
      });
      expectCheck(none, "sd_jwt_structure", "failed", "alg_not_allowed");
    });

    it("a presentation that is not an SD-JWT", async () => {
      const result = await verify(async () => vpTokenOf("eyJhbGciOiJFUzI1NiJ9.e30.c2ln"));
      expectCheck(result, "sd_jwt_structure", "failed", "malformed_sd_jwt");
    });
  });

  describe("issuer_signature", () => {
    it("a tampered signature", async () => {
      const result = await verify(async (session) => {
        const vp = await presentationFor(session, { issuer });
        const [jwt, ...rest] = vp.split("~");
        const [header, payload, signature] = jwt!.split(".");
        const flipped = `${signature!.slice(0, 10)}${signature![10] === "A" ? "B" : "A"}${signature!.slice(11)}`;
        return vpTokenOf([`${header}.${payload}.${flipped}`, ...rest].join("~"));
      });
      expectCheck(result, "issuer_signature", "failed", "signature_invalid");
    });

    it("a tampered payload (exp extended)", async () => {
      const result = await verify(async (session) => {
        const vp = await presentationFor(session, { issuer });
        const [jwt, ...rest] = vp.split("~");
        const [header, payload, signature] = jwt!.split(".");
        const longer = encode({ ...decode(payload!), exp: nowSeconds() + 100 * 365 * 24 * 3600 });
        return vpTokenOf([`${header}.${longer}.${signature}`, ...rest].join("~"));
      });
      expectCheck(result, "issuer_signature", "failed", "signature_invalid");
    });

    it("a credential signed by another key than its DID's", async () => {
      const impostor = { ...didKeyIssuer(verifier.edges), iss: issuer.iss, header: issuer.header };
      const result = await verify(present({ issuer: impostor }));
      expectCheck(result, "issuer_signature", "failed", "signature_invalid");
    });

    it("did:ledger: unknown DID, deactivated DID, ledger down", async () => {
      const ledgerIssuer = didLedgerIssuer(verifier.edges);
      const unknown = { ...ledgerIssuer, iss: "did:ledger:unknown", header: { kid: "did:ledger:unknown#key-1" } };
      expectCheck(await verify(present({ issuer: unknown })), "issuer_signature", "failed", "issuer_did_not_found");
      const deactivated = didLedgerIssuer(verifier.edges, { deactivated: true });
      expectCheck(
        await verify(present({ issuer: deactivated })),
        "issuer_signature",
        "failed",
        "issuer_did_deactivated",
      );
      verifier.edges.down.add("ledger");
      try {
        expectCheck(
          await verify(present({ issuer: ledgerIssuer })),
          "issuer_signature",
          "failed",
          "issuer_resolution_unavailable",
        );
      } finally {
        verifier.edges.down.delete("ledger");
      }
      expectCheck(await verify(present({ issuer: ledgerIssuer })), "issuer_signature", "success", "valid");
      const wrongFragment = { ...ledgerIssuer, header: { kid: `${ledgerIssuer.iss}#key-9` } };
      expectCheck(
        await verify(present({ issuer: wrongFragment })),
        "issuer_signature",
        "failed",
        "issuer_key_not_found",
      );
    });

    it("a kid whose DID is not the iss, and an unsupported DID method", async () => {
      const other = didKeyIssuer(verifier.edges);
      const mismatched = { ...issuer, header: other.header };
      expectCheck(await verify(present({ issuer: mismatched })), "issuer_signature", "failed", "issuer_mismatch");
      const web = { ...issuer, iss: "did:web:issuer.example", header: { kid: "did:web:issuer.example#key-1" } };
      expectCheck(await verify(present({ issuer: web })), "issuer_signature", "failed", "unsupported_did_method");
      const none = { ...issuer, iss: "https://issuer.example", header: {} };
      expectCheck(await verify(present({ issuer: none })), "issuer_signature", "failed", "issuer_metadata_unavailable");
    });

    it("x5c: an untrusted root, an expired leaf, and a root from TRUSTED_X509_ROOTS_PEM", async () => {
      const platform = await x509Hierarchy();
      const foreign = await x509Hierarchy("Foreign Root");
      verifier.edges.trustAnchors = [platform.rootBase64];
      expectCheck(
        await verify(present({ issuer: await foreign.issuer() })),
        "issuer_signature",
        "failed",
        "untrusted_certificate_chain",
      );
      const expiredLeaf = await platform.issuer({ leafNotAfter: new Date(Date.now() - 1000) });
      expectCheck(await verify(present({ issuer: expiredLeaf })), "issuer_signature", "failed", "certificate_expired");
      expectCheck(await verify(present({ issuer: await platform.issuer() })), "issuer_signature", "success", "valid");
      const configured = await startTestVerifier({ env: { TRUSTED_X509_ROOTS_PEM: foreign.rootPem } });
      try {
        // The trust registry is unreachable: the configured root still works, the platform's is unknown.
        configured.edges.trustAnchors = [platform.rootBase64];
        configured.edges.down.add("key-custody");
        const submit = async (x5cIssuer: TestIssuer) => {
          const session = await openSession(configured.app);
          const vp = await presentationFor(session, { issuer: x5cIssuer });
          await postPresentation(configured.app, { state: session.request.state, vp_token: vpTokenOf(vp) });
          return (await readResult(configured.app, session.sessionId)).json() as Result;
        };
        expect((await submit(await foreign.issuer())).status).toBe("completed");
        expectCheck(await submit(await platform.issuer()), "issuer_signature", "failed", "trust_anchors_unavailable");
      } finally {
        await configured.close();
      }
    });
  });

  describe("credential_type, vct, validity", () => {
    it("a typ other than dc+sd-jwt (legacy vc+sd-jwt)", async () => {
      expectCheck(
        await verify(present({ credential: { typ: "vc+sd-jwt" } })),
        "credential_type",
        "failed",
        "typ_invalid",
      );
    });

    it("a vct the query does not accept", async () => {
      const result = await verify(present({ credential: { vct: "https://schemas.example/other/v1" } }));
      expectCheck(result, "vct", "failed", "vct_mismatch");
      const anyVct = await verify(present({ credential: { vct: "https://schemas.example/other/v1" } }), {
        dcql_query: pidQuery({ meta: {} }),
      });
      expectCheck(anyVct, "vct", "success", "valid");
    });

    it("an expired credential, a not-yet-valid one, one issued in the future", async () => {
      const now = nowSeconds();
      expectCheck(
        await verify(present({ credential: { iat: now - 7200, exp: now - 3600 } })),
        "validity",
        "failed",
        "expired",
      );
      expectCheck(await verify(present({ credential: { nbf: now + 3600 } })), "validity", "failed", "not_yet_valid");
      expectCheck(
        await verify(present({ credential: { iat: now + 3600, exp: now + 7200 } })),
        "validity",
        "failed",
        "issued_in_future",
      );
      // Within the 60 s skew: accepted.
      expectCheck(
        await verify(present({ credential: { iat: now - 7200, exp: now - 30 } })),
        "validity",
        "success",
        "valid",
      );
    });
  });

  describe("holder_binding", () => {
    it("a wrong nonce, a wrong aud, a stale or future iat, another holder key", async () => {
      expectCheck(
        await verify(present({ kb: { nonce: "other" } })),
        "holder_binding",
        "failed",
        "kb_jwt_nonce_mismatch",
      );
      const withoutPrefix = (s: OpenedSession) =>
        presentationFor(s, { issuer, kb: { aud: s.request.client_id.replace("decentralized_identifier:", "") } }).then(
          (vp) => vpTokenOf(vp),
        );
      expectCheck(await verify(withoutPrefix), "holder_binding", "failed", "kb_jwt_aud_mismatch");
      expectCheck(
        await verify(present({ kb: { aud: "https://another-verifier.example" } })),
        "holder_binding",
        "failed",
        "kb_jwt_aud_mismatch",
      );
      expectCheck(
        await verify(present({ kb: { iat: nowSeconds() - 301 } })),
        "holder_binding",
        "failed",
        "kb_jwt_iat_stale",
      );
      expectCheck(
        await verify(present({ kb: { iat: nowSeconds() + 120 } })),
        "holder_binding",
        "failed",
        "kb_jwt_iat_in_future",
      );
      expectCheck(
        await verify(present({ kbSignedByOtherKey: true })),
        "holder_binding",
        "failed",
        "kb_jwt_signature_invalid",
      );
    });

    it("a disclosure dropped after key binding breaks sd_hash", async () => {
      const result = await verify(
        async (session) => {
          const vp = await presentationFor(session, {
            issuer,
            disclose: { given_name: true, family_name: true, birthdate: true },
          });
          const parts = vp.split("~");
          return vpTokenOf([parts[0], parts[1], parts[2], parts.at(-1)].join("~"));
        },
        { dcql_query: pidQuery({ claims: [{ path: ["given_name"] }] }) },
      );
      expectCheck(result, "holder_binding", "failed", "kb_jwt_sd_hash_mismatch");
    });

    it("no KB-JWT for a credential with cnf; no cnf when binding is required or not", async () => {
      expectCheck(await verify(present({ kb: false })), "holder_binding", "failed", "kb_jwt_missing");
      expectCheck(
        await verify(present({ kb: false, credential: { holder: undefined } })),
        "holder_binding",
        "failed",
        "cnf_missing",
      );
      const optional = await verify(present({ kb: false, credential: { holder: undefined } }), {
        dcql_query: pidQuery({ require_cryptographic_holder_binding: false }),
      });
      expectCheck(optional, "holder_binding", "skipped", "not_required");
      expect(optional.status).toBe("completed");
      // cnf present: binding is checked even when the query does not require it.
      const cnfWithoutKb = await verify(present({ kb: false }), {
        dcql_query: pidQuery({ require_cryptographic_holder_binding: false }),
      });
      expectCheck(cnfWithoutKb, "holder_binding", "failed", "kb_jwt_missing");
    });
  });

  describe("dcql", () => {
    it("a requested claim not disclosed, a value not accepted", async () => {
      const missing = await verify(present({ disclose: { given_name: true } }));
      expectCheck(missing, "dcql", "failed", "claim_missing");
      expect(missing.check_results.find((c) => c.check === "dcql")?.message).toBe(
        "credential query 'pid': claim 'family_name' is not disclosed",
      );
      const values = await verify(present({ disclose: { address: { country: true } } }), {
        dcql_query: pidQuery({ claims: [{ path: ["address", "country"], values: ["FR", "DE"] }] }),
      });
      expectCheck(values, "dcql", "failed", "claim_value_mismatch");
    });

    it("an unknown credential query id, two presentations without multiple", async () => {
      const unknown = await verify(async (session) => vpTokenOf(await presentationFor(session, { issuer }), "other"));
      expectCheck(unknown, "dcql", "failed", "unknown_credential_query");
      const two = await verify(async (session) => {
        const a = await presentationFor(session, { issuer });
        const b = await presentationFor(session, { issuer });
        return JSON.stringify({ pid: [a, b] });
      });
      expectCheck(two, "dcql", "failed", "multiple_not_allowed");
      const allowed = await verify(
        async (session) => {
          const a = await presentationFor(session, { issuer });
          const b = await presentationFor(session, { issuer: didKeyIssuer(verifier.edges) });
          return JSON.stringify({ pid: [a, b] });
        },
        { dcql_query: pidQuery({ multiple: true }) },
      );
      expect(allowed.status).toBe("completed");
      expect((allowed.presentation_metadata as { credential_metadata: unknown[] }).credential_metadata).toHaveLength(2);
    });
  });

  describe("issuer_signature: the key is bound to iss", () => {
    const WEB_ISS = "https://issuer.example/acme";
    const METADATA_URL = "https://issuer.example/.well-known/jwt-vc-issuer/acme";
    const webIssuer = (signer: TestIssuer, kid: string): TestIssuer => ({ ...signer, iss: WEB_ISS, header: { kid } });

    it("an https iss signed by a foreign did:key (no metadata; metadata without that key)", async () => {
      const attacker = didKeyIssuer();
      const forged = { ...attacker, iss: WEB_ISS };
      expectCheck(
        await verify(present({ issuer: forged })),
        "issuer_signature",
        "failed",
        "issuer_metadata_unavailable",
      );
      const tenant = didLedgerIssuer(verifier.edges);
      verifier.edges.web.set(METADATA_URL, {
        issuer: WEB_ISS,
        jwks: { keys: [{ ...ed25519Public(tenant), kid: tenant.header.kid }] },
      });
      try {
        expectCheck(await verify(present({ issuer: forged })), "issuer_signature", "failed", "issuer_key_not_found");
        // The attacker names the tenant's kid: the metadata key does not verify the attacker's signature.
        const namedKid = { ...forged, header: { kid: tenant.header.kid } };
        expectCheck(await verify(present({ issuer: namedKid })), "issuer_signature", "failed", "signature_invalid");
        // The tenant's own credential verifies by its metadata key; its DID is verified too.
        const genuine = await verify(present({ issuer: webIssuer(tenant, tenant.header.kid as string) }));
        expectCheck(genuine, "issuer_signature", "success", "valid");
        expect(genuine.check_results.find((c) => c.check === "issuer_signature")?.message).toContain("Metadata");
      } finally {
        verifier.edges.web.delete(METADATA_URL);
      }
    });

    it("JWT VC Issuer Metadata naming another issuer, served through jwks_uri, or without keys", async () => {
      const tenant = didKeyIssuer(verifier.edges);
      const kid = "key-1";
      const key = { ...ed25519Public(tenant), kid };
      try {
        verifier.edges.web.set(METADATA_URL, { issuer: "https://issuer.example/other", jwks: { keys: [key] } });
        expectCheck(
          await verify(present({ issuer: webIssuer(tenant, kid) })),
          "issuer_signature",
          "failed",
          "issuer_metadata_mismatch",
        );
        verifier.edges.web.set(METADATA_URL, { issuer: WEB_ISS });
        expectCheck(
          await verify(present({ issuer: webIssuer(tenant, kid) })),
          "issuer_signature",
          "failed",
          "issuer_metadata_invalid",
        );
        verifier.edges.web.set(METADATA_URL, { issuer: WEB_ISS, jwks_uri: "https://issuer.example/jwks.json" });
        verifier.edges.web.set("https://issuer.example/jwks.json", { keys: [key] });
        expectCheck(await verify(present({ issuer: webIssuer(tenant, kid) })), "issuer_signature", "success", "valid");
      } finally {
        verifier.edges.web.delete(METADATA_URL);
        verifier.edges.web.delete("https://issuer.example/jwks.json");
      }
    });

    it("a DID iss with the kid of another DID, and an iss that is neither a DID nor a URL", async () => {
      const tenant = didLedgerIssuer(verifier.edges);
      const attacker = didKeyIssuer();
      const borrowed = { ...attacker, iss: tenant.iss };
      expectCheck(await verify(present({ issuer: borrowed })), "issuer_signature", "failed", "issuer_mismatch");
      const urn = { ...attacker, iss: "urn:example:issuer" };
      expectCheck(await verify(present({ issuer: urn })), "issuer_signature", "failed", "issuer_unsupported");
    });

    it("x5c: a leaf whose SAN does not name iss; a leaf with only a dNSName SAN of iss's host", async () => {
      const platform = await x509Hierarchy();
      verifier.edges.trustAnchors = [platform.rootBase64];
      const otherTenant = await platform.issuer({ iss: "https://issuer.attesto.test/globex" });
      const impersonating = { ...otherTenant, iss: "https://issuer.attesto.test/acme" };
      expectCheck(await verify(present({ issuer: impersonating })), "issuer_signature", "failed", "x5c_san_mismatch");
      const noSan = await platform.issuer({ subjectAltNames: [] });
      expectCheck(await verify(present({ issuer: noSan })), "issuer_signature", "failed", "x5c_san_mismatch");
      const dnsOnly = await platform.issuer({ subjectAltNames: [{ type: "dns", value: "issuer.attesto.test" }] });
      expectCheck(await verify(present({ issuer: dnsOnly })), "issuer_signature", "success", "valid");
    });
  });

  describe("issuer_trust (deny by default)", () => {
    it("a foreign did:key whose key binding verifies is not trusted; the query's trusted_authorities trust it", async () => {
      const stranger = didKeyIssuer();
      const result = await verify(present({ issuer: stranger }));
      expectCheck(result, "issuer_signature", "success", "valid");
      expectCheck(result, "issuer_trust", "failed", "untrusted_issuer");
      const requested = await verify(present({ issuer: stranger }), {
        dcql_query: pidQuery({ trusted_authorities: [{ type: "did", values: [stranger.iss] }] }),
      });
      expectCheck(requested, "issuer_trust", "success", "trusted_authorities");
      expect(requested.status).toBe("completed");
    });

    it("a registered DID and a registered issuer URL are trusted; the registry down fails closed", async () => {
      expectCheck(await verify(present({ issuer })), "issuer_trust", "success", "registered");
      const tenant = didKeyIssuer();
      const kid = "key-1";
      const web = { ...tenant, iss: "https://issuer.example/registered", header: { kid } };
      verifier.edges.web.set("https://issuer.example/.well-known/jwt-vc-issuer/registered", {
        issuer: web.iss,
        jwks: { keys: [{ ...ed25519Public(tenant), kid }] },
      });
      verifier.edges.registered.issuerUrls.add(web.iss);
      try {
        const result = await verify(present({ issuer: web }));
        expectCheck(result, "issuer_trust", "success", "registered");
        expect(result.status).toBe("completed");
        expect(
          (result.presentation_metadata as { credential_metadata: { issuer: string }[] }).credential_metadata[0]
            ?.issuer,
        ).toBe(web.iss);
        // The session is created before the registry goes down (API keys are checked there too).
        const down = await verify(async (session) => {
          verifier.edges.down.add("trust-registry");
          return present({ issuer: web })(session);
        });
        expectCheck(down, "issuer_trust", "failed", "registry_unavailable");
      } finally {
        verifier.edges.down.delete("trust-registry");
        verifier.edges.registered.issuerUrls.delete(web.iss);
      }
    });

    it("a deactivated tenant is never trusted: not its x5c chain to the platform root, not by the query's trusted_authorities", async () => {
      const platform = await x509Hierarchy();
      verifier.edges.trustAnchors = [platform.rootBase64];
      const gone = await platform.issuer({ iss: "https://issuer.attesto.test/gone" });
      verifier.edges.registered.issuerUrls.add(gone.iss);
      try {
        expectCheck(await verify(present({ issuer: gone })), "issuer_trust", "success", "registered");
        // Deactivated now: the very next verification refuses it (GetIssuerStanding is never cached).
        verifier.edges.registered.issuerUrls.delete(gone.iss);
        verifier.edges.deactivatedIssuers.add(gone.iss);
        const before = verifier.edges.calls.getIssuerStanding;
        const result = await verify(present({ issuer: gone }));
        expect(verifier.edges.calls.getIssuerStanding).toBe(before + 1);
        expectCheck(result, "issuer_signature", "success", "valid");
        expectCheck(result, "issuer_trust", "failed", "issuer_deactivated");
        expect(result.status).toBe("failed");
        const named = await verify(present({ issuer: gone }), {
          dcql_query: pidQuery({ trusted_authorities: [{ type: "aki", values: [platform.rootKeyIdentifier] }] }),
        });
        expectCheck(named, "issuer_trust", "failed", "issuer_deactivated");
        // A chain to the platform root CA alone, naming no tenant, is not registered either.
        const stranger = await platform.issuer({ iss: "https://issuer.attesto.test/nobody" });
        expectCheck(await verify(present({ issuer: stranger })), "issuer_trust", "failed", "untrusted_issuer");
      } finally {
        verifier.edges.deactivatedIssuers.delete(gone.iss);
        verifier.edges.trustAnchors = [];
      }
    });

    it("fail_fast ends failed at issuer_trust and skips the rest", async () => {
      const session = await openSession(verifier.app);
      const vp = await presentationFor(session, { issuer: didKeyIssuer() });
      await postPresentation(verifier.app, { state: session.request.state, vp_token: vpTokenOf(vp) });
      const result = (await readResult(verifier.app, session.sessionId)).json() as Result;
      expect(result.status).toBe("failed");
      expectCheck(result, "issuer_trust", "failed", "untrusted_issuer");
      expectCheck(result, "credential_type", "skipped", "previous_check_failed");
    });
  });

  describe("trusted_authorities", () => {
    it("matches the issuer DID, or the x5c AKI; fails an issuer outside the list", async () => {
      const trusted = pidQuery({ trusted_authorities: [{ type: "did", values: [issuer.iss] }] });
      expectCheck(await verify(present(), { dcql_query: trusted }), "trusted_authorities", "success", "trusted");
      const other = pidQuery({ trusted_authorities: [{ type: "did", values: ["did:ledger:someone-else"] }] });
      expectCheck(await verify(present(), { dcql_query: other }), "trusted_authorities", "failed", "untrusted_issuer");

      const platform = await x509Hierarchy();
      verifier.edges.trustAnchors = [platform.rootBase64];
      const x5cIssuer = await platform.issuer();
      const byAki = pidQuery({ trusted_authorities: [{ type: "aki", values: [platform.rootKeyIdentifier] }] });
      expectCheck(
        await verify(present({ issuer: x5cIssuer }), { dcql_query: byAki }),
        "trusted_authorities",
        "success",
        "trusted",
      );
      const wrongAki = pidQuery({ trusted_authorities: [{ type: "aki", values: ["AAAA"] }] });
      expectCheck(
        await verify(present({ issuer: x5cIssuer }), { dcql_query: wrongAki }),
        "trusted_authorities",
        "failed",
        "untrusted_issuer",
      );
    });
  });

  it("every check of a failed run_all result has a reason code and a message without credential data", async () => {
    const result = await verify(present({ kb: { nonce: "x" }, credential: { vct: PID_VCT, exp: 1 } }));
    for (const check of result.check_results) {
      expect(check.reason_code).toMatch(/^[a-z_]+$/);
      expect(check.message).not.toMatch(/Ada|Lovelace|eyJ/);
    }
  });
});
