import { randomBytes } from "node:crypto";
import { CompactEncrypt, importJWK, type JWK } from "jose";
import { HttpClient, HttpError, header } from "./http.js";
import {
  type ClientKey,
  clientKey,
  decodeJwtPayload,
  dpopProof,
  KeyPool,
  nowSeconds,
  sha256Base64url,
  signJwt,
} from "./jose-lite.js";
import type { BenchService, ServiceUrls } from "./topology.js";

/**
 * The end-to-end flows the bench drives, written as a wallet and a relying party would run them
 * over HTTP. Each flow reports the wall time of its steps through `step()`; a step that needs a
 * DPoP nonce retry counts the retry in its own time (fresh wallets do not know the nonce yet).
 */

export type StepRecorder = <T>(name: string, run: () => Promise<T>) => Promise<T>;

export interface Flow {
  name: string;
  steps: string[];
  run(http: HttpClient, step: StepRecorder): Promise<void>;
}

export interface BenchTenant {
  tenant: string;
  apiKey: string;
  did: string;
  didSeed: string;
}

/** The services the flows call (the scheduler is only reached by the verifier). */
export type Urls = Record<Exclude<BenchService, "scheduler">, ServiceUrls>;

const PRE_AUTHORIZED_GRANT = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

export const DIPLOMA_CLAIMS = {
  given_name: "Ada",
  family_name: "Lovelace",
  birth_date: "1815-12-10",
  degree: { type: "master", name: "Master of Science in Mathematics" },
  institution: { name: "University of London", country: "GB" },
  awarded_on: "1843-09-01",
};

const json = (value: unknown) => ({ headers: { "content-type": "application/json" }, body: JSON.stringify(value) });

/** Setup only: apply, log in, create a DID (rate-limited endpoints; never in the measured loop). */
export async function createBenchTenant(urls: Urls, label: string): Promise<BenchTenant> {
  const http = new HttpClient(2);
  try {
    const tenant = `${label}-${randomBytes(4).toString("hex")}`;
    const password = `Bench-${randomBytes(6).toString("hex")}1A`;
    const trust = urls["trust-registry"].publicUrl;
    const { body: applied } = await http.json<{ uuid: string; api_key: string }>(
      "apply",
      "POST",
      `${trust}/v1/apply`,
      201,
      json({ name: `Bench ${label}`, password, tenant, is_issuer: true, is_verifier: true }),
    );
    const { body: login } = await http.json<{ access_token: string }>(
      "login",
      "POST",
      `${trust}/v1/auth/login`,
      200,
      json({ uuid: applied.uuid, password }),
    );
    const { body: did } = await http.json<{ did: string; private_key: string }>("did", "POST", `${trust}/v1/did`, 201, {
      headers: { "content-type": "application/json", authorization: `Bearer ${login.access_token}` },
      body: "{}",
    });
    return { tenant, apiKey: applied.api_key, did: did.did, didSeed: did.private_key };
  } finally {
    await http.close();
  }
}

export interface IssuedCredential {
  credential: string;
  holder: ClientKey;
}

/**
 * Pre-authorized issuance, end to end: offer (API key) -> offer document -> token -> nonce ->
 * credential with a key proof. X.509 path: DPoP-bound token and credential request, each with the
 * nonce retry a fresh wallet goes through (400 / 401 use_dpop_nonce, then the proof with the nonce).
 */
export function issuanceFlow(
  urls: Urls,
  tenant: BenchTenant,
  path: "did" | "x509",
  onIssued?: (issued: IssuedCredential) => void,
): Flow {
  const issuer = urls["credential-issuer"].publicUrl;
  return issuanceFlowAt(
    {
      name: `issuance (${path === "did" ? "DID, EdDSA, Bearer" : "X.509, ES256, DPoP"})`,
      offers: `${issuer}/v1/offers`,
      token: `${urls["auth-server"].publicUrl}/v1/token`,
      nonce: `${issuer}/v1/nonce`,
      credential: `${issuer}/credential`,
      apiKey: tenant.apiKey,
      offerExtras: path === "did" ? { issuer_did: tenant.did, issuer_private_key: tenant.didSeed } : {},
      dpop: path === "x509",
    },
    onIssued,
  );
}

/**
 * The same issuance flow against the library peer (peer/main.ts, which serves the same paths on
 * one port): Bearer tokens, so it compares with the DID path.
 */
export function peerIssuanceFlow(peerUrl: string, onIssued?: (issued: IssuedCredential) => void): Flow {
  return issuanceFlowAt(
    {
      name: "issuance (library peer, EdDSA, Bearer)",
      offers: `${peerUrl}/v1/offers`,
      token: `${peerUrl}/v1/token`,
      nonce: `${peerUrl}/v1/nonce`,
      credential: `${peerUrl}/credential`,
      apiKey: "unchecked",
      offerExtras: {},
      dpop: false,
    },
    onIssued,
  );
}

interface IssuanceTarget {
  name: string;
  offers: string;
  token: string;
  nonce: string;
  credential: string;
  apiKey: string;
  offerExtras: Record<string, string>;
  dpop: boolean;
}

function issuanceFlowAt(target: IssuanceTarget, onIssued?: (issued: IssuedCredential) => void): Flow {
  const tokenEndpoint = target.token;
  const credentialEndpoint = target.credential;
  const holders = new KeyPool("ES256", 128);
  const dpopKeys = new KeyPool("ES256", 128);
  const offerBody = JSON.stringify({
    credential: { config_id: "university-diploma", claims: DIPLOMA_CLAIMS },
    flow: "pre-authorized",
    ...target.offerExtras,
  });
  const offerHeaders = { "content-type": "application/json", "x-api-key": target.apiKey };

  return {
    name: target.name,
    steps: ["offer", "offer_document", "token", "nonce", "credential"],
    async run(http, step) {
      const offer = await step("offer", async () => {
        const { body } = await http.json<{ credential_offer_uri: string }>("offer", "POST", target.offers, 201, {
          headers: offerHeaders,
          body: offerBody,
        });
        return body;
      });
      const document = await step("offer_document", async () => {
        const { body } = await http.json<{
          credential_issuer: string;
          credential_configuration_ids: string[];
          grants: Record<string, { "pre-authorized_code": string }>;
        }>("offer_document", "GET", offer.credential_offer_uri, 200);
        return body;
      });
      const code = document.grants[PRE_AUTHORIZED_GRANT]!["pre-authorized_code"];
      const dpopKey = target.dpop ? dpopKeys.take() : undefined;
      const token = await step("token", async () => {
        const form = `grant_type=${encodeURIComponent(PRE_AUTHORIZED_GRANT)}&pre-authorized_code=${encodeURIComponent(code)}`;
        const send = (nonce?: string) =>
          http.send("POST", tokenEndpoint, {
            headers: {
              "content-type": "application/x-www-form-urlencoded",
              ...(dpopKey ? { dpop: dpopProof(dpopKey, "POST", tokenEndpoint, nonce ? { nonce } : {}) } : {}),
            },
            body: form,
          });
        let response = await send();
        if (dpopKey && response.status === 400 && response.text.includes("use_dpop_nonce")) {
          response = await send(header(response, "dpop-nonce"));
        }
        if (response.status !== 200)
          throw new HttpError("token", response, `token: HTTP ${response.status} ${response.text}`);
        const body = JSON.parse(response.text) as { access_token: string; token_type: string };
        const expectedType = dpopKey ? "DPoP" : "Bearer";
        if (body.token_type !== expectedType)
          throw new Error(`token: token_type ${body.token_type}, not ${expectedType}`);
        return body.access_token;
      });
      const cNonce = await step("nonce", async () => {
        const { body } = await http.json<{ c_nonce: string }>("nonce", "POST", target.nonce, 200);
        return body.c_nonce;
      });
      const holder = holders.take();
      const credential = await step("credential", async () => {
        const proof = signJwt(
          holder,
          { typ: "openid4vci-proof+jwt", jwk: holder.publicJwk },
          { aud: document.credential_issuer, iat: nowSeconds(), nonce: cNonce },
        );
        const body = JSON.stringify({
          credential_configuration_id: document.credential_configuration_ids[0],
          proofs: { jwt: [proof] },
        });
        const send = (nonce?: string) =>
          http.send("POST", credentialEndpoint, {
            headers: {
              "content-type": "application/json",
              authorization: `${dpopKey ? "DPoP" : "Bearer"} ${token}`,
              ...(dpopKey
                ? {
                    dpop: dpopProof(dpopKey, "POST", credentialEndpoint, {
                      accessToken: token,
                      ...(nonce ? { nonce } : {}),
                    }),
                  }
                : {}),
            },
            body,
          });
        let response = await send();
        if (
          dpopKey &&
          (response.status === 400 || response.status === 401) &&
          String(header(response, "www-authenticate")).includes("use_dpop_nonce")
        ) {
          response = await send(header(response, "dpop-nonce"));
        }
        if (response.status !== 200) {
          throw new HttpError("credential", response, `credential: HTTP ${response.status} ${response.text}`);
        }
        return (JSON.parse(response.text) as { credentials: Array<{ credential: string }> }).credentials[0]!.credential;
      });
      onIssued?.({ credential, holder });
    },
  };
}

/** The `vct` of an SD-JWT VC. */
export const decodeVct = (credential: string) => decodeJwtPayload<{ vct: string }>(credential.split("~")[0]!).vct;

/** A credential ready to present: its issuer JWT and the disclosures the query asks for. */
interface Presentable {
  issuerJwt: string;
  disclosures: string[];
  holder: ClientKey;
}

function presentable(issued: IssuedCredential, names: string[]): Presentable {
  const [issuerJwt, ...parts] = issued.credential.split("~");
  const disclosures = parts.filter((part) => {
    if (part === "") return false;
    const decoded = JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as unknown[];
    return decoded.length === 3 && names.includes(decoded[1] as string);
  });
  if (disclosures.length !== names.length) throw new Error(`the credential does not disclose ${names.join(", ")}`);
  return { issuerJwt: issuerJwt!, disclosures, holder: issued.holder };
}

/** The holder's presentation: issuer JWT, chosen disclosures, KB-JWT (aud = client_id, nonce, sd_hash). */
function presentation(credential: Presentable, aud: string, nonce: string): string {
  const sdJwt = `${credential.issuerJwt}~${credential.disclosures.join("~")}~`;
  const kb = signJwt(
    credential.holder,
    { typ: "kb+jwt" },
    { iat: nowSeconds(), aud, nonce, sd_hash: sha256Base64url(sdJwt) },
  );
  return `${sdJwt}${kb}`;
}

const base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
function didKeyOfEd25519(x: string): string {
  const bytes = Buffer.concat([Buffer.from([0xed, 0x01]), Buffer.from(x, "base64url")]);
  let value = BigInt(`0x${bytes.toString("hex")}`);
  let out = "";
  while (value > 0n) {
    out = base58[Number(value % 58n)]! + out;
    value /= 58n;
  }
  return `did:key:z${out}`;
}

/**
 * OID4VP, end to end: authorization request (API key) -> request object -> presentation
 * (direct_post form, or direct_post.jwt: the response encrypted to the request's ephemeral key
 * with ECDH-ES / A128GCM) -> result (API key), which must say `completed`.
 */
export function verificationFlow(
  urls: Urls,
  tenant: BenchTenant,
  credentials: IssuedCredential[],
  options: {
    label: string;
    responseMode: "direct_post" | "direct_post.jwt";
    /** Told the session id of every completed verification (the soak checks each is stored). */
    onVerified?: (sessionId: string) => void;
    /** Another verifier serving the same paths (the library peer, which checks no API key). */
    verifierUrl?: string;
  },
): Flow {
  const verifier = options.verifierUrl ?? urls.verifier.publicUrl;
  const relyingParty = clientKey("EdDSA");
  const rpSeed = relyingParty.privateKey.export({ format: "jwk" }).d!;
  const rpDid = didKeyOfEd25519(relyingParty.publicJwk.x);
  const vct = decodeVct(credentials[0]!.credential);
  const requestBody = JSON.stringify({
    dcql_query: {
      credentials: [
        {
          id: "diploma",
          format: "dc+sd-jwt",
          meta: { vct_values: [vct] },
          claims: [{ path: ["given_name"] }, { path: ["family_name"] }],
        },
      ],
    },
    verifier_private_key: rpSeed,
    verifier_client_id: rpDid,
    response_mode: options.responseMode,
  });
  const apiHeaders = { "x-api-key": tenant.apiKey };
  const pool = credentials.map((issued) => presentable(issued, ["given_name", "family_name"]));
  let next = 0;

  return {
    name: `verification (${options.label}, ${options.responseMode})`,
    steps: ["authorization_request", "request_object", "presentation", "result"],
    async run(http, step) {
      const credential = pool[next++ % pool.length]!;
      const created = await step("authorization_request", async () => {
        const { body } = await http.json<{ session_id: string; request_uri: string }>(
          "authorization_request",
          "POST",
          `${verifier}/v1/verifier/authorization-request`,
          201,
          { headers: { ...apiHeaders, "content-type": "application/json" }, body: requestBody },
        );
        return body;
      });
      const request = await step("request_object", async () => {
        const response = await http.send("GET", created.request_uri);
        if (response.status !== 200) {
          throw new HttpError("request_object", response, `request_object: HTTP ${response.status} ${response.text}`);
        }
        return decodeJwtPayload<{
          client_id: string;
          nonce: string;
          state: string;
          response_uri: string;
          client_metadata?: { jwks?: { keys: JWK[] } };
        }>(response.text);
      });
      await step("presentation", async () => {
        const vpToken = JSON.stringify({ diploma: [presentation(credential, request.client_id, request.nonce)] });
        let form: string;
        if (options.responseMode === "direct_post.jwt") {
          const jwk = request.client_metadata?.jwks?.keys[0];
          if (!jwk) throw new Error("presentation: the request object has no encryption key");
          const jwe = await new CompactEncrypt(
            new TextEncoder().encode(JSON.stringify({ vp_token: JSON.parse(vpToken), state: request.state })),
          )
            .setProtectedHeader({ alg: "ECDH-ES", enc: "A128GCM", ...(jwk.kid ? { kid: jwk.kid } : {}) })
            .encrypt(await importJWK(jwk, "ECDH-ES"));
          form = `response=${jwe}`;
        } else {
          form = `vp_token=${encodeURIComponent(vpToken)}&state=${encodeURIComponent(request.state)}`;
        }
        await http.json("presentation", "POST", request.response_uri, 200, {
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: form,
        });
      });
      await step("result", async () => {
        const { body } = await http.json<{
          status: string;
          check_results: Array<{ check: string; status: string; reason_code: string }>;
        }>("result", "GET", `${verifier}/v1/verifier/result/${created.session_id}`, 200, { headers: apiHeaders });
        if (body.status !== "completed") {
          const failed = body.check_results.filter((check) => check.status === "failed");
          throw new Error(
            `result: ${body.status} (${failed.map((check) => `${check.check}/${check.reason_code}`).join(", ")})`,
          );
        }
      });
      options.onVerified?.(created.session_id);
    },
  };
}

/** A custodial wallet account on the holder service: its login token and a did:ledger DID it holds. */
export interface HolderAccount {
  token: string;
  did: string;
  privateKey: string;
}

/** Setup only: register, log in (rate-limited), create a did:ledger DID. */
export async function createHolderAccount(urls: Urls): Promise<HolderAccount> {
  const http = new HttpClient(2);
  const holder = urls.holder.publicUrl;
  try {
    const password = `bench-${randomBytes(8).toString("hex")}`;
    const { body: registered } = await http.json<{ uuid: string }>(
      "register",
      "POST",
      `${holder}/v1/user/register`,
      201,
      json({ password, name: "Bench holder" }),
    );
    const { body: login } = await http.json<{ access_token: string }>(
      "login",
      "POST",
      `${holder}/v1/user/login`,
      200,
      json({ uuid: registered.uuid, password }),
    );
    const { body: did } = await http.json<{ did: string; private_key: string }>(
      "did",
      "POST",
      `${holder}/v1/did`,
      201,
      {
        headers: { "content-type": "application/json", authorization: `Bearer ${login.access_token}` },
        body: JSON.stringify({ method: "LEDGER" }),
      },
    );
    return { token: login.access_token, did: did.did, privateKey: did.private_key };
  } finally {
    await http.close();
  }
}

/**
 * The custodial holder receiving a credential: the issuer creates an offer (DID path), the holder
 * runs the whole OID4VCI flow against the issuer and auth server itself and stores the credential
 * (POST /v1/oid4vci/receive, notarize_on_ledger false to stay comparable with the issuance flows).
 */
export function holderReceiveFlow(
  urls: Urls,
  tenant: BenchTenant,
  account: HolderAccount,
  onReceived?: (received: { credentialId: string; vct: string }) => void,
): Flow {
  const issuer = urls["credential-issuer"].publicUrl;
  const holder = urls.holder.publicUrl;
  const offerBody = JSON.stringify({
    credential: { config_id: "university-diploma", claims: DIPLOMA_CLAIMS },
    flow: "pre-authorized",
    issuer_did: tenant.did,
    issuer_private_key: tenant.didSeed,
  });
  return {
    name: "holder receive (DID-signed)",
    steps: ["offer", "receive"],
    async run(http, step) {
      const offer = await step("offer", async () => {
        const { body } = await http.json<{ deep_link: string }>("offer", "POST", `${issuer}/v1/offers`, 201, {
          headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
          body: offerBody,
        });
        return body;
      });
      const received = await step("receive", async () => {
        const { body } = await http.json<{ credential_id: string; vct: string }>(
          "receive",
          "POST",
          `${holder}/v1/oid4vci/receive`,
          201,
          {
            headers: { "content-type": "application/json", authorization: `Bearer ${account.token}` },
            body: JSON.stringify({
              credential_offer_uri: offer.deep_link,
              holder_did: account.did,
              private_key: account.privateKey,
              notarize_on_ledger: false,
            }),
          },
        );
        return body;
      });
      onReceived?.({ credentialId: received.credential_id, vct: received.vct });
    },
  };
}

/**
 * The custodial holder presenting: the relying party creates an authorization request, the holder
 * resolves it, builds the presentation (KB-JWT) and posts it (POST /v1/oid4vp/presentation), the
 * relying party reads a `completed` result.
 */
export function holderPresentFlow(
  urls: Urls,
  tenant: BenchTenant,
  account: HolderAccount,
  credentialIds: string[],
  vct: string,
): Flow {
  const verifier = urls.verifier.publicUrl;
  const holder = urls.holder.publicUrl;
  const relyingParty = clientKey("EdDSA");
  const requestBody = JSON.stringify({
    dcql_query: {
      credentials: [
        {
          id: "diploma",
          format: "dc+sd-jwt",
          meta: { vct_values: [vct] },
          claims: [{ path: ["given_name"] }, { path: ["family_name"] }],
        },
      ],
    },
    verifier_private_key: relyingParty.privateKey.export({ format: "jwk" }).d!,
    verifier_client_id: didKeyOfEd25519(relyingParty.publicJwk.x),
  });
  const apiHeaders = { "x-api-key": tenant.apiKey };
  let next = 0;
  return {
    name: "holder present (DID-signed, direct_post)",
    steps: ["authorization_request", "present", "result"],
    async run(http, step) {
      const credentialId = credentialIds[next++ % credentialIds.length]!;
      const created = await step("authorization_request", async () => {
        const { body } = await http.json<{ session_id: string; authorization_request: string }>(
          "authorization_request",
          "POST",
          `${verifier}/v1/verifier/authorization-request`,
          201,
          { headers: { ...apiHeaders, "content-type": "application/json" }, body: requestBody },
        );
        return body;
      });
      await step("present", async () => {
        const { body } = await http.json<{ success: boolean }>(
          "present",
          "POST",
          `${holder}/v1/oid4vp/presentation`,
          200,
          {
            headers: { "content-type": "application/json", authorization: `Bearer ${account.token}` },
            body: JSON.stringify({
              authorization_request_uri: created.authorization_request,
              selected_credentials: [
                { credential_id: credentialId, query_id: "diploma", disclosed_claims: ["given_name", "family_name"] },
              ],
              holder_did: account.did,
              private_key: account.privateKey,
            }),
          },
        );
        if (!body.success) throw new Error("present: success false");
      });
      await step("result", async () => {
        const { body } = await http.json<{
          status: string;
          check_results: Array<{ check: string; status: string; reason_code: string }>;
        }>("result", "GET", `${verifier}/v1/verifier/result/${created.session_id}`, 200, { headers: apiHeaders });
        if (body.status !== "completed") {
          const failed = body.check_results.filter((check) => check.status === "failed");
          throw new Error(`result: ${body.status} (${failed.map((c) => `${c.check}/${c.reason_code}`).join(", ")})`);
        }
      });
    },
  };
}
