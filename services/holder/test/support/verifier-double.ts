import { createHash, randomBytes, randomUUID } from "node:crypto";
import {
  createResponseEncryptionKey,
  decryptAuthorizationResponse,
  didKeyFromPublicJwk,
  ed25519PublicJwk,
  generateEd25519Jwk,
  holderJwkOf,
  parseSdJwtPresentation,
  type ResponseEncryptionKey,
  verifyKeyBindingJwt,
} from "@attesto/protocol";
import type { App } from "@attesto/runtime/http";
import { importJWK, SignJWT } from "jose";
import type { InMemoryLedger } from "./in-memory-ledger.js";
import { createDoubleApp, listen } from "./listen.js";
import { createTestChain, type TestChain } from "./x509-chain.js";

/** `url`: the double's own URL (key in the `jwk` header); `foreign_url`: a URL on another origin. */
export type ClientIdKind = "did:key" | "did:ledger" | "x509_san_dns" | "x509_hash" | "url" | "foreign_url";

export interface RequestOptions {
  dcqlQuery: Record<string, unknown>;
  responseMode?: "direct_post" | "direct_post.jwt";
  clientIdKind?: ClientIdKind;
  redirectUri?: string;
  /** One fault in the request object. */
  tamper?: "signature" | "typ" | "aud" | "client_id" | "expired" | "response_mode" | "no_dcql" | "kid" | "no_jwk";
  /** The request URI answers this status instead of the JWT. */
  requestStatus?: number;
  /** The response endpoint refuses (400 invalid_request), as for an expired session. */
  refuseResponse?: boolean;
  encValues?: string[];
  /** Put `request_uri_method=post` in the link. */
  requestUriMethod?: "post";
  /** x509 client ids: this chain signs and is the x5c (x509_hash names its leaf; x509_san_dns stays localhost). */
  x509Chain?: TestChain;
  /** x509 client ids: the client_id names the double's own leaf but another certificate signs, or nothing does (alg none). */
  x509Fault?: "other_leaf" | "unsigned";
}

export interface Submission {
  requestId: string;
  mode: string;
  state: unknown;
  /** Per query id, the presentations' disclosed claims (processed payloads). */
  claims: Record<string, Array<Record<string, unknown>>>;
  /** Per query id, the raw presentations. */
  presentations: Record<string, string[]>;
  /** Problems found while verifying the KB-JWTs (empty when all verified). */
  problems: string[];
  enc?: string;
}

interface RequestRecord {
  id: string;
  options: RequestOptions;
  clientId: string;
  nonce: string;
  state: string;
  encryptionKey?: ResponseEncryptionKey;
}

export interface VerifierDouble {
  baseUrl: string;
  submissions: Submission[];
  fetches: string[];
  createRequest(options: RequestOptions): { link: string; id: string; clientId: string; nonce: string; state: string };
  close(): Promise<void>;
}

/**
 * A hand-written OID4VP 1.0 verifier that is not Attesto's: signed request objects (EdDSA for
 * did:key / did:ledger client ids, ES256 with x5c for x509_san_dns / x509_hash), direct_post and
 * direct_post.jwt responses, and a check of every presentation's KB-JWT (aud, nonce, sd_hash, iat).
 */
export async function startVerifierDouble(ledger?: InMemoryLedger): Promise<VerifierDouble> {
  const app: App = await createDoubleApp("verifier-double");
  let baseUrl = "";
  const requests = new Map<string, RequestRecord>();
  const submissions: Submission[] = [];
  const fetches: string[] = [];
  const key = generateEd25519Jwk();
  const didKey = didKeyFromPublicJwk(ed25519PublicJwk(key));
  const ledgerIdentity = ledger?.anchor(ed25519PublicJwk(key));
  let chain: TestChain | undefined;
  /** Another trusted leaf (same root, same DNS name): a signer the client_id does not name. */
  let otherChain: TestChain | undefined;

  const clientIdFor = (
    kind: ClientIdKind,
    signingChain: TestChain | undefined = chain,
  ): { clientId: string; kid?: string; x5c?: string[]; jwk?: object } => {
    if (kind === "url") return { clientId: baseUrl, jwk: ed25519PublicJwk(key) };
    if (kind === "foreign_url") return { clientId: "https://verifier.elsewhere.example", jwk: ed25519PublicJwk(key) };
    if (kind === "did:ledger") {
      if (!ledgerIdentity) throw new Error("no ledger given to the verifier double");
      return { clientId: `decentralized_identifier:${ledgerIdentity.did}`, kid: ledgerIdentity.keyId };
    }
    if (kind === "x509_san_dns") return { clientId: "x509_san_dns:localhost", x5c: signingChain!.x5c };
    if (kind === "x509_hash") {
      const hash = createHash("sha256").update(Buffer.from(signingChain!.leaf.rawData)).digest("base64url");
      return { clientId: `x509_hash:${hash}`, x5c: signingChain!.x5c };
    }
    return { clientId: `decentralized_identifier:${didKey}`, kid: `${didKey}#${didKey.slice("did:key:".length)}` };
  };

  async function requestObject(record: RequestRecord, walletNonce?: string): Promise<string> {
    const { options } = record;
    const kind = options.clientIdKind ?? "did:key";
    const signingChain = options.x509Fault === "other_leaf" ? otherChain : (options.x509Chain ?? chain);
    const identity = clientIdFor(kind, signingChain);
    const now = Math.floor(Date.now() / 1000);
    const mode = options.responseMode ?? "direct_post";
    const claims: Record<string, unknown> = {
      iss: identity.clientId.replace(/^decentralized_identifier:/, ""),
      aud: options.tamper === "aud" ? "https://verifier.example" : "https://self-issued.me/v2",
      client_id: options.tamper === "client_id" ? "decentralized_identifier:did:key:zOther" : record.clientId,
      response_type: "vp_token",
      response_mode: options.tamper === "response_mode" ? "fragment" : mode,
      response_uri: `${baseUrl}/response`,
      nonce: record.nonce,
      state: record.state,
      ...(options.tamper === "no_dcql" ? {} : { dcql_query: options.dcqlQuery }),
      client_metadata: {
        client_name: "Acme Rentals",
        vp_formats_supported: {
          "dc+sd-jwt": { "sd-jwt_alg_values": ["ES256", "EdDSA"], "kb-jwt_alg_values": ["ES256", "EdDSA"] },
        },
        ...(record.encryptionKey
          ? {
              jwks: { keys: [record.encryptionKey.publicJwk] },
              encrypted_response_enc_values_supported: options.encValues ?? ["A128GCM", "A256GCM"],
            }
          : {}),
      },
      iat: now,
      // Expired by an hour: the holder under test reads a clock fixed when its test began, not this one.
      exp: options.tamper === "expired" ? now - 3600 : now + 300,
      ...(walletNonce ? { wallet_nonce: walletNonce } : {}),
    };
    const typ = options.tamper === "typ" ? "JWT" : "oauth-authz-req+jwt";
    if (identity.x5c && options.x509Fault === "unsigned") {
      const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
      return `${encode({ alg: "none", typ, x5c: identity.x5c })}.${encode(claims)}.`;
    }
    if (identity.x5c) {
      const signingKey = await importJWK(signingChain!.leafPrivateJwk, "ES256");
      return new SignJWT(claims).setProtectedHeader({ alg: "ES256", typ, x5c: identity.x5c }).sign(signingKey);
    }
    const signingKey = options.tamper === "signature" ? generateEd25519Jwk() : key;
    const kid = options.tamper === "kid" ? "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#x" : identity.kid;
    return new SignJWT(claims)
      .setProtectedHeader({
        alg: "EdDSA",
        typ,
        ...(kid ? { kid } : {}),
        ...(identity.jwk && options.tamper !== "no_jwk" ? { jwk: identity.jwk } : {}),
      })
      .sign(await importJWK(signingKey, "EdDSA"));
  }

  const serve = async (id: string, reply: import("fastify").FastifyReply, walletNonce?: string) => {
    const record = requests.get(id);
    if (!record) return reply.code(404).send({ error: "not_found" });
    if (record.options.requestStatus) return reply.code(record.options.requestStatus).send({ error: "gone" });
    return reply.type("application/oauth-authz-req+jwt").send(await requestObject(record, walletNonce));
  };
  app.get("/requests/:id", async (request, reply) => {
    fetches.push(`GET ${request.url}`);
    return serve((request.params as { id: string }).id, reply);
  });
  app.post("/requests/:id", async (request, reply) => {
    fetches.push(`POST ${request.url}`);
    return serve(
      (request.params as { id: string }).id,
      reply,
      (request.body as { wallet_nonce?: string })?.wallet_nonce,
    );
  });

  app.post("/response", async (request, reply) => {
    const form = request.body as Record<string, string>;
    let payload: Record<string, unknown> = form;
    let record: RequestRecord | undefined;
    let enc: string | undefined;
    if (form.response) {
      const header = JSON.parse(Buffer.from(form.response.split(".")[0]!, "base64url").toString());
      enc = header.enc;
      record = [...requests.values()].find((r) => r.encryptionKey?.publicJwk.kid === header.kid);
      if (!record?.encryptionKey)
        return reply.code(400).send({ error: "invalid_request", error_description: "unknown key" });
      payload = await decryptAuthorizationResponse(form.response, record.encryptionKey.privateJwk);
    } else {
      record = [...requests.values()].find((r) => r.state === form.state);
    }
    if (!record) return reply.code(400).send({ error: "invalid_request", error_description: "session not found" });
    if (record.options.refuseResponse) {
      return reply.code(400).send({ error: "invalid_request", error_description: "session expired" });
    }
    const vpToken = (typeof payload.vp_token === "string" ? JSON.parse(payload.vp_token) : payload.vp_token) as Record<
      string,
      string[]
    >;
    const submission: Submission = {
      requestId: record.id,
      mode: form.response ? "direct_post.jwt" : "direct_post",
      state: payload.state,
      claims: {},
      presentations: vpToken,
      problems: [],
      ...(enc ? { enc } : {}),
    };
    for (const [queryId, presentations] of Object.entries(vpToken)) {
      submission.claims[queryId] = [];
      for (const presentation of presentations) {
        try {
          const parsed = parseSdJwtPresentation(presentation);
          await verifyKeyBindingJwt(parsed, holderJwkOf(parsed.claims) ?? {}, {
            audience: record.clientId,
            nonce: record.nonce,
            now: Math.floor(Date.now() / 1000),
            maxAgeSeconds: 300,
            clockSkewSeconds: 60,
          });
          submission.claims[queryId]!.push(parsed.claims);
        } catch (error) {
          submission.problems.push((error as Error).message);
        }
      }
    }
    submissions.push(submission);
    return reply.send(
      record.options.redirectUri ? { redirect_uri: `${record.options.redirectUri}?id=${record.id}` } : {},
    );
  });

  baseUrl = await listen(app, "localhost");
  chain = await createTestChain("verifier-double", { dnsNames: ["localhost"] });
  otherChain = await createTestChain("verifier-double-other", { dnsNames: ["localhost"] });

  return {
    baseUrl,
    submissions,
    fetches,
    createRequest(options) {
      const id = randomUUID();
      const record: RequestRecord = {
        id,
        options,
        clientId: clientIdFor(options.clientIdKind ?? "did:key", options.x509Chain ?? chain).clientId,
        nonce: randomBytes(32).toString("base64url"),
        state: randomBytes(32).toString("base64url"),
        ...(options.responseMode === "direct_post.jwt" ? { encryptionKey: createResponseEncryptionKey() } : {}),
      };
      requests.set(id, record);
      const link =
        `openid4vp://?client_id=${encodeURIComponent(record.clientId)}` +
        `&request_uri=${encodeURIComponent(`${baseUrl}/requests/${id}`)}` +
        (options.requestUriMethod ? `&request_uri_method=${options.requestUriMethod}` : "");
      return { link, id, clientId: record.clientId, nonce: record.nonce, state: record.state };
    },
    close: () => app.close(),
  };
}
