/**
 * Credential status end to end (IETF Token Status List): credentials issued by the real platform
 * carry `status.status_list`; the issuer's tenant API changes a status; the running verifier's
 * `revocation` check follows it within the list's ttl; a verifier written here from the draft
 * (draft-ietf-oauth-status-list, with jose, @peculiar/x509 and node:zlib only, nothing of the
 * project's services) reads the same list; two tenants' lists never mix; the holder service shows
 * the status it reads from the list and offers a revoked or suspended credential for presentation
 * only when asked to.
 */
import { inflateSync } from "node:zlib";
import { compactVerify, decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { didKeyOf, type WalletKey, walletKey } from "../interop/support/keys.js";
import { type InteropPlatform, startInteropPlatform } from "../interop/support/platform.js";
import { decodeSdJwt, presentSdJwtVc, validateX5c } from "../interop/support/sd-jwt.js";
import { applyTenant, createOffer, type Tenant } from "../interop/support/tenant.js";
import { InteropWallet, receiveCredential } from "../interop/support/wallet.js";

/** Ports 27781..27788 / 28781..28788 (19600 would meet the CLI suite's public ports) (see test/interop/support/platform.ts for the offsets in use). */
const PORT_OFFSET = 19_700;
/** Seconds a Status List Token may be reused: short, so that a change is seen within the polling deadline. */
const STATUS_LIST_TTL_SECONDS = "1";
const POLL_DEADLINE_MS = 20_000;

interface Held {
  tenant: Tenant;
  credential: string;
  holder: WalletKey;
  vct: string;
  credentialId: string;
  statusList: { idx: number; uri: string };
}

type CredentialStatus = "active" | "suspended" | "revoked";

function pollUntil<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  return vi.waitFor(
    async () => {
      const last = await read();
      if (!done(last))
        throw new Error(`${what}: not reached within ${POLL_DEADLINE_MS} ms, last ${JSON.stringify(last)}`);
      return last;
    },
    { timeout: POLL_DEADLINE_MS, interval: 200 },
  );
}

describe("credential status: issuer, verifier and an independent status list reader", () => {
  let platform: InteropPlatform;
  let first: Held;
  let second: Held;
  const previousTtl = process.env.STATUS_LIST_TTL_SECONDS;

  async function issue(tenant: Tenant): Promise<Held> {
    const wallet = new InteropWallet();
    const holder = wallet.key("ES256");
    const offer = await createOffer(platform, tenant);
    const received = await receiveCredential(wallet, offer.deep_link, {
      dpop: true,
      proofKey: holder,
      proofKeyReference: "jwk",
    });
    const { vct } = received.issuerMetadata.credentialIssuer.credential_configurations_supported[
      received.credentialConfigurationId
    ] as unknown as { vct: string };
    const listed = await fetch(`${platform.url("credential-issuer")}/v1/credentials?offer_id=${offer.offer_id}`, {
      headers: { "x-api-key": tenant.apiKey },
    });
    expect(listed.status).toBe(200);
    const { credentials } = (await listed.json()) as { credentials: Array<{ id: string; status: string }> };
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.status).toBe("active");
    const { payload } = decodeSdJwt(received.credential);
    const statusList = (payload.status as { status_list: { idx: number; uri: string } }).status_list;
    return { tenant, credential: received.credential, holder, vct, credentialId: credentials[0]!.id, statusList };
  }

  async function setStatus(held: Pick<Held, "tenant" | "credentialId">, status: CredentialStatus) {
    const response = await fetch(`${platform.url("credential-issuer")}/v1/credentials/${held.credentialId}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-api-key": held.tenant.apiKey },
      body: JSON.stringify({ status }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(((await response.json()) as { status: string }).status).toBe(status);
  }

  /** A verifier session of the running verifier asking for a diploma's given_name. */
  async function openVerifierSession(held: Pick<Held, "tenant" | "vct">) {
    const relyingParty = walletKey("EdDSA");
    const created = await fetch(`${platform.url("verifier")}/v1/verifier/authorization-request`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": held.tenant.apiKey },
      body: JSON.stringify({
        dcql_query: {
          credentials: [
            {
              id: "diploma",
              format: "dc+sd-jwt",
              meta: { vct_values: [held.vct] },
              claims: [{ path: ["given_name"] }],
            },
          ],
        },
        verifier_private_key: relyingParty.privateKey.export({ format: "jwk" }).d,
        verifier_client_id: didKeyOf(relyingParty),
        response_mode: "direct_post",
      }),
    });
    const createdBody = await created.text();
    expect(created.status, createdBody).toBe(201);
    return JSON.parse(createdBody) as { session_id: string; authorization_request: string };
  }

  /** The verifier's result of a session: its status and the revocation check as `<status> <reason_code>`. */
  async function verifierResult(tenant: Tenant, sessionId: string) {
    const result = await fetch(`${platform.url("verifier")}/v1/verifier/result/${sessionId}`, {
      headers: { "x-api-key": tenant.apiKey },
    });
    expect(result.status).toBe(200);
    const body = (await result.json()) as {
      status: string;
      check_results: Array<{ check: string; status: string; reason_code: string }>;
    };
    const revocation = body.check_results.find((c) => c.check === "revocation");
    return {
      status: body.status,
      revocation: revocation ? `${revocation.status} ${revocation.reason_code}` : "absent",
    };
  }

  /** A whole presentation to the running verifier; answers the session's result. */
  async function presentToVerifier(held: Held) {
    const { session_id, authorization_request } = await openVerifierSession(held);
    const requestUri = new URL(authorization_request).searchParams.get("request_uri")!;
    const requestObject = await fetch(requestUri);
    expect(requestObject.status).toBe(200);
    const request = decodeJwt(await requestObject.text()) as {
      client_id: string;
      nonce: string;
      state: string;
      response_uri: string;
    };
    const vp = await presentSdJwtVc(held.credential, { given_name: true }, held.holder, {
      aud: request.client_id,
      nonce: request.nonce,
    });
    const posted = await fetch(request.response_uri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ state: request.state, vp_token: JSON.stringify({ diploma: [vp] }) }),
    });
    expect(posted.status, await posted.clone().text()).toBe(200);
    return verifierResult(held.tenant, session_id);
  }

  /**
   * The independent reader, from the draft: fetch the Status List Token at `uri`, check its type,
   * its x5c chain up to the platform's trust anchors and its signature with the chain's leaf key,
   * `sub` = uri and `iss` = the credential's; inflate `lst`; read 2 bits at `idx` (LSB first).
   */
  async function readStatusIndependently(held: Held): Promise<number> {
    const response = await fetch(held.statusList.uri, { headers: { accept: "application/statuslist+jwt" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/statuslist\+jwt/);
    const token = await response.text();
    const header = decodeProtectedHeader(token);
    expect(header.typ).toBe("statuslist+jwt");
    const { leafKey } = await validateX5c(header.x5c!, await platform.trustAnchors());
    const { payload } = await compactVerify(token, leafKey);
    const claims = JSON.parse(new TextDecoder().decode(payload)) as {
      sub: string;
      iss: string;
      exp: number;
      ttl: number;
      status_list: { bits: number; lst: string };
    };
    expect(claims.sub).toBe(held.statusList.uri);
    expect(claims.iss).toBe(decodeSdJwt(held.credential).payload.iss);
    expect(claims.exp * 1000).toBeGreaterThan(Date.now());
    expect(claims.status_list.bits).toBe(2);
    const bytes = inflateSync(Buffer.from(claims.status_list.lst, "base64url"));
    const { idx } = held.statusList;
    const perByte = 8 / claims.status_list.bits;
    const byte = bytes[Math.floor(idx / perByte)]!;
    return (byte >> ((idx % perByte) * claims.status_list.bits)) & ((1 << claims.status_list.bits) - 1);
  }

  async function expectVerifier(held: Held, revocation: string, status: "completed" | "failed") {
    const seen = await pollUntil(
      `verifier revocation ${revocation}`,
      () => presentToVerifier(held),
      (result) => result.revocation === revocation,
    );
    expect(seen).toEqual({ status, revocation });
  }

  beforeAll(async () => {
    process.env.STATUS_LIST_TTL_SECONDS = STATUS_LIST_TTL_SECONDS;
    platform = await startInteropPlatform({
      portOffset: PORT_OFFSET,
      label: "status",
      // Status changes publish a webhook event through the scheduler; the holder is a wallet under test.
      alsoStart: ["scheduler", "holder"],
    });
    first = await issue(await applyTenant(platform, "status-a"));
    second = await issue(await applyTenant(platform, "status-b"));
  }, 180_000);
  afterAll(async () => {
    if (previousTtl === undefined) delete process.env.STATUS_LIST_TTL_SECONDS;
    else process.env.STATUS_LIST_TTL_SECONDS = previousTtl;
    await platform?.close();
  });

  it("each credential names a list under its own tenant's path on the issuer", () => {
    for (const held of [first, second]) {
      const uri = new URL(held.statusList.uri);
      expect(uri.origin).toBe(platform.url("credential-issuer"));
      expect(uri.pathname).toMatch(new RegExp(`^/status-lists/${held.tenant.tenant}/[0-9a-f-]{36}$`));
      expect(Number.isInteger(held.statusList.idx)).toBe(true);
    }
    expect(first.statusList.uri).not.toBe(second.statusList.uri);
  });

  it("another tenant's list id under the wrong tenant path answers 404", async () => {
    const listId = new URL(second.statusList.uri).pathname.split("/").at(-1);
    const wrong = await fetch(`${platform.url("credential-issuer")}/status-lists/${first.tenant.tenant}/${listId}`);
    expect(wrong.status).toBe(404);
    const own = await fetch(second.statusList.uri);
    expect(own.status).toBe(200);
  });

  it("the verifier follows active -> suspended -> active -> revoked; the independent reader agrees", async () => {
    await expectVerifier(first, "success valid", "completed");
    expect(await readStatusIndependently(first)).toBe(0);

    await setStatus(first, "suspended");
    await expectVerifier(first, "failed suspended", "failed");
    expect(
      await pollUntil(
        "list reads SUSPENDED",
        () => readStatusIndependently(first),
        (v) => v === 2,
      ),
    ).toBe(2);

    await setStatus(first, "active");
    await expectVerifier(first, "success valid", "completed");
    expect(
      await pollUntil(
        "list reads VALID",
        () => readStatusIndependently(first),
        (v) => v === 0,
      ),
    ).toBe(0);

    await setStatus(first, "revoked");
    await expectVerifier(first, "failed revoked", "failed");
    // draft-ietf-oauth-status-list: 0x01 INVALID.
    expect(
      await pollUntil(
        "list reads INVALID",
        () => readStatusIndependently(first),
        (v) => v === 1,
      ),
    ).toBe(1);
  });

  it("revoking in one tenant changes nothing in the other's list", async () => {
    // Runs after the revocation above: the other tenant's credential still reads VALID everywhere.
    expect(await readStatusIndependently(first)).toBe(1);
    expect(await readStatusIndependently(second)).toBe(0);
    expect(await presentToVerifier(second)).toEqual({ status: "completed", revocation: "success valid" });
    const listed = await fetch(`${platform.url("credential-issuer")}/v1/credentials/${first.credentialId}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-api-key": second.tenant.apiKey },
      body: JSON.stringify({ status: "revoked" }),
    });
    expect(listed.status).toBe(404);
  });
  it("the holder service reads the status from the list: suspended and revoked are shown and not offered unless asked for", async () => {
    const tenant = await applyTenant(platform, "status-c");
    const holderUrl = platform.url("holder");
    const password = "holder-password-1";
    const registered = await fetch(`${holderUrl}/v1/user/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password }),
    });
    expect(registered.status).toBe(201);
    const { uuid } = (await registered.json()) as { uuid: string };
    const login = await fetch(`${holderUrl}/v1/user/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ uuid, password }),
    });
    const { access_token } = (await login.json()) as { access_token: string };
    const asHolder = (path: string, body?: unknown) =>
      fetch(`${holderUrl}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const holderKey = walletKey("EdDSA");
    const identity = { holder_did: didKeyOf(holderKey), private_key: holderKey.privateKey.export({ format: "jwk" }).d };

    const offer = await createOffer(platform, tenant);
    const received = await asHolder("/v1/oid4vci/receive", {
      credential_offer_uri: offer.deep_link,
      notarize_on_ledger: false,
      ...identity,
    });
    expect(received.status, await received.clone().text()).toBe(201);
    const { credential_id: id, vct } = (await received.json()) as { credential_id: string; vct: string };
    const issued = await fetch(`${platform.url("credential-issuer")}/v1/credentials?offer_id=${offer.offer_id}`, {
      headers: { "x-api-key": tenant.apiKey },
    });
    const issuerRecord = {
      tenant,
      credentialId: ((await issued.json()) as { credentials: Array<{ id: string }> }).credentials[0]!.id,
    };

    const shown = async () => {
      const listed = (await (await asHolder("/v1/vc")).json()) as {
        credentials: Array<{ id: string; status: string; credential_status: string }>;
      };
      const detail = (await (await asHolder(`/v1/vc/${id}`)).json()) as { credential_status: string };
      const item = listed.credentials.find((c) => c.id === id)!;
      // The wallet's own status stays "active"; list and detail agree on the issuer's.
      expect(item.status).toBe("active");
      return item.credential_status === detail.credential_status ? item.credential_status : "list and detail differ";
    };
    const offered = async (extra: Record<string, unknown> = {}) => {
      const session = await openVerifierSession({ tenant, vct });
      const details = await asHolder("/v1/oid4vp/request-details", {
        authorization_request: session.authorization_request,
        ...extra,
      });
      expect(details.status).toBe(200);
      const body = (await details.json()) as {
        matching_credentials: Array<{ credential_id: string; credential_status: string }>;
        excluded_credentials: Array<{ credential_id: string; reason: string }>;
      };
      return {
        session,
        matching: body.matching_credentials.map(
          (m) => `${m.credential_id === id ? "it" : "other"} ${m.credential_status}`,
        ),
        excluded: body.excluded_credentials.map((e) => `${e.credential_id === id ? "it" : "other"} ${e.reason}`),
      };
    };
    const present = (session: { authorization_request: string }, extra: Record<string, unknown> = {}) =>
      asHolder("/v1/oid4vp/presentation", {
        authorization_request: session.authorization_request,
        selected_credentials: [{ credential_id: id, query_id: "diploma" }],
        ...identity,
        ...extra,
      });

    expect(await shown()).toBe("valid");
    expect(await offered()).toMatchObject({ matching: ["it valid"], excluded: [] });

    await setStatus(issuerRecord, "suspended");
    expect(await pollUntil("holder shows suspended", shown, (s) => s === "suspended")).toBe("suspended");
    expect(await offered()).toMatchObject({ matching: [], excluded: ["it suspended"] });
    expect(await offered({ include_suspended: true })).toMatchObject({ matching: ["it suspended"], excluded: [] });

    await setStatus(issuerRecord, "revoked");
    expect(await pollUntil("holder shows revoked", shown, (s) => s === "revoked")).toBe("revoked");
    const { session, matching, excluded } = await offered();
    expect({ matching, excluded }).toEqual({ matching: [], excluded: ["it revoked"] });
    const refused = await present(session);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: "no_matching_credentials",
      message: `credential ${id} is revoked by its issuer (include_revoked: true presents it anyway)`,
    });
    // Asked for explicitly, the wallet presents it; the verifier reads the same list and refuses it.
    const presented = await present(session, { include_revoked: true });
    expect(presented.status, await presented.clone().text()).toBe(200);
    expect(await verifierResult(tenant, session.session_id)).toEqual({
      status: "failed",
      revocation: "failed revoked",
    });
  }, 60_000);
});
