import { createHash, randomBytes, randomUUID } from "node:crypto";
import {
  CredentialProofError,
  createCNonces,
  createDpopNonces,
  createPrivateJwkSigner,
  didKeyFromPublicJwk,
  ed25519PublicJwk,
  generateEd25519Jwk,
  issueSdJwtVc,
  type JwtSigner,
  STATUS_LIST_JWT_MEDIA_TYPE,
  STATUS_TYPE,
  type StatusTypeName,
  setStatusAt,
  signStatusListToken,
  verifyCredentialProof,
  verifyDpopProof,
} from "@attesto/protocol";
import type { App } from "@attesto/runtime/http";
import type { InMemoryLedger } from "./in-memory-ledger.js";
import { createDoubleApp, listen } from "./listen.js";
import { createTestChain } from "./x509-chain.js";

export const DIPLOMA_VCT = "https://schemas.example/university-diploma/v1";
export const BADGE_VCT = "https://schemas.example/employee-badge/v1";
export const diplomaClaims = {
  given_name: "Ada",
  family_name: "Lovelace",
  degree: { type: "bachelor", name: "Mathematics" },
  courses: [{ title: "Analysis" }, { title: "Algebra" }],
  awarded_on: "1835-06-01",
};
export const badgeClaims = { employee_id: "E-1", given_name: "Ada", role: "engineer" };

const PRE_AUTH = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

/** How the issuer double signs credentials. */
export type SigningMode = "did:key" | "did:ledger" | "x5c" | "jwt-vc-issuer";

/** Ways the issuer double misbehaves, to test each refusal of the wallet. */
export interface IssuerBehaviour {
  signing: SigningMode;
  /** The token endpoint demands a DPoP nonce first (400 use_dpop_nonce). */
  tokenDpopNonce: boolean;
  /** The credential endpoint demands a DPoP nonce first (401 WWW-Authenticate use_dpop_nonce). */
  credentialDpopNonce: boolean;
  /** Tokens are Bearer even when a DPoP proof was sent. */
  bearerTokens: boolean;
  /**
   * The authorization server supports DPoP (advertises dpop_signing_alg_values_supported). When
   * false it refuses any token request carrying a DPoP header, as an AS without DPoP support may.
   */
  dpopSupported: boolean;
  bindingMethods: string[] | undefined;
  proofAlgs: string[];
  /** Answer the credential endpoint with this status and error instead of issuing. */
  credentialFailure?: { status: number; error: string; description?: string };
  /** Issue something wrong. */
  tamper?:
    | "signature"
    | "cnf"
    | "vct"
    | "iss"
    | "typ"
    | "expired"
    | "kb"
    /** The offer's https iss, signed by a did:key that is not in its JWT VC Issuer Metadata (impersonation). */
    | "foreign-did-key"
    /** A DID iss with the kid of another DID. */
    | "other-did-kid"
    /** An x5c chain whose leaf names another issuer in its subjectAltName. */
    | "x5c-san";
  /** Legacy `credential` member instead of `credentials`. */
  legacyResponse: boolean;
  /** Issue credentials with `status.status_list` into the double's Token Status List. */
  statusList: boolean;
  /**
   * An OID4VCI notification endpoint in the metadata and a `notification_id` in credential
   * responses; `failing` answers every notification 500.
   */
  notification?: "ok" | "failing";
  /** `credential_id` and `offer_id` beside the credential (Attesto's extension members), as given. */
  issuerIds?: { credential_id: unknown; offer_id: unknown };
}

/**
 * The double's Token Status List (2 bits, 1024 entries) and how it is served. Each reset() starts
 * a fresh list at a new `uri` (a wallet's cached token of an earlier test never answers for it).
 */
export interface StatusListDouble {
  uri: string;
  /** Seconds of the token's `ttl`. */
  ttl: number;
  /** Answer 503 instead of the token. */
  unavailable: boolean;
  /** Sign with a key not bound to the issuer. */
  foreignKey: boolean;
  /** Status List Token requests served (any answer). */
  fetches: number;
  set(idx: number, status: StatusTypeName): void;
}

const defaults = (): IssuerBehaviour => ({
  signing: "did:key",
  tokenDpopNonce: true,
  credentialDpopNonce: true,
  bearerTokens: false,
  dpopSupported: true,
  bindingMethods: ["did", "jwk"],
  proofAlgs: ["ES256", "EdDSA"],
  legacyResponse: false,
  statusList: false,
});

const STATUS_LIST_ENTRIES = 1024;

interface OfferRecord {
  document: Record<string, unknown>;
  status: number;
}

interface CodeRecord {
  used: boolean;
  txCode?: string;
  configurationIds: string[];
}

export interface IssuerDouble {
  baseUrl: string;
  /** The credential issuer identifier: `<baseUrl>/acme` (a path, to test the well-known rule). */
  issuerId: string;
  behaviour: IssuerBehaviour;
  /** Every request, as `METHOD /path`. */
  requests: string[];
  /** Credential requests received (bodies). */
  credentialRequests: Array<Record<string, unknown>>;
  /** Notification requests received (bodies). */
  notifications: Array<Record<string, unknown>>;
  /** What an is_on_chain request enqueued, as Attesto's issuer would: the object id and the salted digest. */
  notarized: Array<{ objectId: string; digest: string }>;
  statusList: StatusListDouble;
  /** The issuer's DID when signing with a DID. */
  issuerDid(): string;
  metadataOverrides: Record<string, unknown>;
  /** An offer link; `options.byValue` puts the offer in the link. */
  offer(options?: {
    configurationIds?: string[];
    txCode?: string;
    expiresAt?: string;
    status?: number;
    byValue?: boolean;
    grants?: Record<string, unknown>;
    documentOverrides?: Record<string, unknown>;
  }): { link: string; code: string; offerId: string };
  reset(): void;
  close(): Promise<void>;
}

/**
 * A hand-written OID4VCI 1.0 issuer and authorization server that is not Attesto's: offer by
 * reference or value, metadata only at the well-known insertion path, token endpoint with DPoP and
 * its nonce dance, nonce endpoint, credential endpoint with the resource-server DPoP nonce dance,
 * key proof verification, and SD-JWT VCs signed by did:key, did:ledger, x5c or an SD-JWT VC issuer
 * metadata key. `behaviour` switches on one misbehaviour at a time.
 */
export async function startIssuerDouble(ledger?: InMemoryLedger): Promise<IssuerDouble> {
  const app: App = await createDoubleApp("issuer-double");
  let baseUrl = "";
  const issuerId = () => `${baseUrl}/acme`;
  const asId = () => `${baseUrl}/as`;
  const state = {
    behaviour: defaults(),
    requests: [] as string[],
    credentialRequests: [] as Array<Record<string, unknown>>,
    notifications: [] as Array<Record<string, unknown>>,
    notarized: [] as Array<{ objectId: string; digest: string }>,
    metadataOverrides: {} as Record<string, unknown>,
  };
  const offers = new Map<string, OfferRecord>();
  const codes = new Map<string, CodeRecord>();
  const tokens = new Map<string, { jkt?: string; configurationIds: string[] }>();
  const dpopNonces = createDpopNonces({ secret: randomBytes(32) });
  const cNonces = createCNonces({ secret: randomBytes(32).toString("hex") });
  const used = new Set<string>();
  const replay = {
    async consume(namespace: string, value: string) {
      const key = `${namespace}|${value}`;
      if (used.has(key)) return false;
      used.add(key);
      return true;
    },
  };

  // Signing keys of every mode.
  const edKey = generateEd25519Jwk();
  const didKey = didKeyFromPublicJwk(ed25519PublicJwk(edKey));
  const ledgerDid = ledger?.anchor(ed25519PublicJwk(edKey));
  // The x5c leaves name the issuer identifier, known once listening.
  let chain!: Awaited<ReturnType<typeof createTestChain>>;
  let foreignChain!: Awaited<ReturnType<typeof createTestChain>>;
  const vcIssuerKey = generateEd25519Jwk();

  const foreignKey = generateEd25519Jwk();
  const foreignDid = didKeyFromPublicJwk(ed25519PublicJwk(foreignKey));
  const signerFor = (mode: SigningMode, tamper: IssuerBehaviour["tamper"]): JwtSigner => {
    if (tamper === "foreign-did-key" || tamper === "other-did-kid") {
      return createPrivateJwkSigner(foreignKey, { kid: `${foreignDid}#${foreignDid.slice("did:key:".length)}` });
    }
    if (tamper === "x5c-san") return createPrivateJwkSigner(foreignChain.leafPrivateJwk, { x5c: foreignChain.x5c });
    if (mode === "x5c") return createPrivateJwkSigner(chain.leafPrivateJwk, { x5c: chain.x5c });
    if (mode === "did:ledger") {
      if (!ledgerDid) throw new Error("no ledger given to the issuer double");
      return createPrivateJwkSigner(edKey, { kid: ledgerDid.keyId });
    }
    if (mode === "jwt-vc-issuer") return createPrivateJwkSigner(vcIssuerKey, { kid: "vc-key-1" });
    return createPrivateJwkSigner(edKey, { kid: `${didKey}#${didKey.slice("did:key:".length)}` });
  };

  /** `iss` as an honest issuer of this mode sets it: the DID on the DID modes, the issuer identifier otherwise. */
  const issOf = (mode: SigningMode, tamper: IssuerBehaviour["tamper"]): string => {
    if (tamper === "iss") return "https://impostor.example";
    if (tamper === "foreign-did-key" || tamper === "x5c-san") return issuerId();
    if (tamper === "other-did-kid") return didKey;
    if (mode === "did:key") return didKey;
    if (mode === "did:ledger") return ledgerDid!.did;
    return issuerId();
  };

  const statusBytes = new Uint8Array((STATUS_LIST_ENTRIES * 2) / 8);
  let nextStatusIdx = 0;
  let statusListGeneration = 1;
  const statusList: StatusListDouble = {
    uri: "",
    ttl: 10,
    unavailable: false,
    foreignKey: false,
    fetches: 0,
    set: (idx, status) => setStatusAt(statusBytes, idx, 2, STATUS_TYPE[status]),
  };

  app.addHook("onRequest", async (request) => {
    state.requests.push(`${request.method} ${request.url.split("?")[0]}`);
  });

  const configuration = (vct: string) => ({
    format: "dc+sd-jwt",
    vct,
    scope: vct,
    ...(state.behaviour.bindingMethods
      ? { cryptographic_binding_methods_supported: state.behaviour.bindingMethods }
      : {}),
    credential_signing_alg_values_supported: ["ES256", "EdDSA"],
    proof_types_supported: { jwt: { proof_signing_alg_values_supported: state.behaviour.proofAlgs } },
    credential_metadata: {
      display: [
        { name: "Diplom", locale: "de-DE" },
        { name: vct === DIPLOMA_VCT ? "University Diploma" : "Employee Badge", locale: "en-US" },
      ],
    },
  });

  app.get("/.well-known/openid-credential-issuer/acme", async () => ({
    credential_issuer: issuerId(),
    authorization_servers: [asId()],
    credential_endpoint: `${baseUrl}/credential`,
    nonce_endpoint: `${baseUrl}/nonce`,
    ...(state.behaviour.notification ? { notification_endpoint: `${baseUrl}/notification` } : {}),
    display: [{ name: "Acme University", locale: "en-US", logo: { uri: "https://acme.example/logo.png" } }],
    credential_configurations_supported: { diploma: configuration(DIPLOMA_VCT), badge: configuration(BADGE_VCT) },
    ...state.metadataOverrides,
  }));

  app.get("/.well-known/oauth-authorization-server/as", async () => ({
    issuer: asId(),
    token_endpoint: `${asId()}/token`,
    grant_types_supported: [PRE_AUTH],
    ...(state.behaviour.dpopSupported ? { dpop_signing_alg_values_supported: ["ES256", "EdDSA"] } : {}),
  }));

  app.get("/.well-known/jwt-vc-issuer/acme", async () => ({
    issuer: issuerId(),
    jwks: { keys: [{ ...ed25519PublicJwk(vcIssuerKey), kid: "vc-key-1" }] },
  }));

  app.get("/offers/:id", async (request, reply) => {
    const offer = offers.get((request.params as { id: string }).id);
    if (!offer) return reply.code(404).send({ error: "not_found" });
    return reply.code(offer.status).send(offer.status === 200 ? offer.document : { error: "gone" });
  });

  app.post("/as/token", async (request, reply) => {
    const body = request.body as Record<string, string>;
    let jkt: string | undefined;
    if (request.headers.dpop !== undefined && !state.behaviour.dpopSupported) {
      return reply.code(400).send({ error: "invalid_request", error_description: "DPoP is not supported" });
    }
    if (request.headers.dpop !== undefined) {
      try {
        const proof = await verifyDpopProof({
          header: request.headers.dpop,
          method: "POST",
          url: `${asId()}/token`,
          ...(state.behaviour.tokenDpopNonce ? { nonces: dpopNonces } : {}),
          replay,
        });
        jkt = proof.jkt;
      } catch (error) {
        const code = (error as { code?: string }).code ?? "invalid_dpop_proof";
        return reply
          .code(400)
          .header("dpop-nonce", dpopNonces.issue())
          .send({ error: code, error_description: (error as Error).message });
      }
    }
    if (body.grant_type !== PRE_AUTH) return reply.code(400).send({ error: "unsupported_grant_type" });
    const code = codes.get(body["pre-authorized_code"] ?? "");
    if (!code || code.used)
      return reply.code(400).send({ error: "invalid_grant", error_description: "code expired or used" });
    if (code.txCode !== undefined && body.tx_code !== code.txCode) {
      return reply.code(400).send({ error: "invalid_grant", error_description: "wrong tx_code" });
    }
    code.used = true;
    const token = randomBytes(24).toString("base64url");
    const bound = jkt !== undefined && !state.behaviour.bearerTokens;
    tokens.set(token, { ...(bound ? { jkt } : {}), configurationIds: code.configurationIds });
    return reply
      .header("cache-control", "no-store")
      .send({ access_token: token, token_type: bound ? "DPoP" : "Bearer", expires_in: 3600 });
  });

  // The Token Status List, signed as the credentials are (or by a foreign key when asked to).
  app.get("/status-lists/:generation", async (request, reply) => {
    statusList.fetches += 1;
    if ((request.params as { generation: string }).generation !== String(statusListGeneration)) {
      return reply.code(404).send({ error: "not_found" });
    }
    if (statusList.unavailable) return reply.code(503).send({ error: "unavailable" });
    const now = Math.floor(Date.now() / 1000);
    const token = await signStatusListToken({
      signer: signerFor(state.behaviour.signing, statusList.foreignKey ? "foreign-did-key" : undefined),
      uri: statusList.uri,
      issuer: issOf(state.behaviour.signing, undefined),
      bits: 2,
      bytes: statusBytes,
      issuedAt: now,
      expiresAt: now + 3600,
      ttl: statusList.ttl,
    });
    return reply.header("content-type", STATUS_LIST_JWT_MEDIA_TYPE).send(token);
  });

  app.post("/notification", async (request, reply) => {
    state.notifications.push(request.body as Record<string, unknown>);
    if (state.behaviour.notification === "failing") return reply.code(500).send({ error: "server_error" });
    return reply.code(204).send();
  });

  app.post("/nonce", async (_request, reply) =>
    reply.header("cache-control", "no-store").send({ c_nonce: cNonces.create().value }),
  );

  app.post("/credential", async (request, reply) => {
    const [scheme, token] = (request.headers.authorization ?? "").split(" ");
    const grant = token ? tokens.get(token) : undefined;
    if (!grant) return reply.code(401).send({ error: "invalid_token" });
    if (grant.jkt) {
      if (scheme !== "DPoP")
        return reply
          .code(401)
          .header("www-authenticate", 'DPoP error="invalid_token"')
          .send({ error: "invalid_token" });
      try {
        await verifyDpopProof({
          header: request.headers.dpop,
          method: "POST",
          url: `${baseUrl}/credential`,
          accessToken: token,
          expectedJkt: grant.jkt,
          ...(state.behaviour.credentialDpopNonce ? { nonces: dpopNonces } : {}),
          replay,
        });
      } catch (error) {
        if ((error as { code?: string }).code === "use_dpop_nonce") {
          return reply
            .code(401)
            .header("www-authenticate", 'DPoP error="use_dpop_nonce", error_description="nonce required"')
            .header("dpop-nonce", dpopNonces.issue())
            .send({ error: "use_dpop_nonce" });
        }
        return reply.code(400).send({ error: "invalid_dpop_proof", error_description: (error as Error).message });
      }
    }
    const body = request.body as Record<string, unknown>;
    state.credentialRequests.push(body);
    const failure = state.behaviour.credentialFailure;
    if (failure)
      return reply.code(failure.status).send({ error: failure.error, error_description: failure.description });
    const configurationId = body.credential_configuration_id as string;
    if (!grant.configurationIds.includes(configurationId))
      return reply.code(400).send({ error: "unknown_credential_configuration" });
    const jwt = ((body.proofs as { jwt?: string[] } | undefined)?.jwt ?? [])[0];
    let proof: Awaited<ReturnType<typeof verifyCredentialProof>>;
    try {
      proof = await verifyCredentialProof(jwt ?? "", {
        audience: issuerId(),
        cNonces,
        resolveDidDocument: async (did) => ledger?.dids.get(did)?.document,
      });
    } catch (error) {
      if (error instanceof CredentialProofError)
        return reply.code(400).send({ error: "invalid_proof", error_description: error.message });
      throw error;
    }
    if (!(await replay.consume("c_nonce", proof.nonce))) return reply.code(400).send({ error: "invalid_nonce" });
    const vct = configurationId === "badge" ? BADGE_VCT : DIPLOMA_VCT;
    const tamper = state.behaviour.tamper;
    const now = Math.floor(Date.now() / 1000);
    const otherHolder = ed25519PublicJwk(generateEd25519Jwk());
    const issued = await issueSdJwtVc({
      signer: signerFor(state.behaviour.signing, tamper),
      issuer: issOf(state.behaviour.signing, tamper),
      vct: tamper === "vct" ? "https://schemas.example/other" : vct,
      claims: configurationId === "badge" ? badgeClaims : diplomaClaims,
      holderPublicJwk: tamper === "cnf" ? otherHolder : proof.publicJwk,
      issuedAt: tamper === "expired" ? now - 7200 : now,
      expiresAt: tamper === "expired" ? now - 3600 : now + 365 * 24 * 3600,
      ...(state.behaviour.statusList ? { status: { status_list: { idx: nextStatusIdx++, uri: statusList.uri } } } : {}),
    });
    let credential = issued.credential;
    if (tamper === "signature") {
      const [jwtPart, ...rest] = credential.split("~");
      const [h, p, s] = jwtPart!.split(".");
      credential = [`${h}.${p}.${s!.slice(0, -4)}AAAA`, ...rest].join("~");
    }
    if (tamper === "typ") {
      const [jwtPart, ...rest] = credential.split("~");
      const header = Buffer.from(jwtPart!.split(".")[0]!, "base64url").toString().replace("dc+sd-jwt", "vc+sd-jwt");
      credential = [
        [Buffer.from(header).toString("base64url"), ...jwtPart!.split(".").slice(1)].join("."),
        ...rest,
      ].join("~");
    }
    if (tamper === "kb") credential = `${credential}eyJhbGciOiJFUzI1NiJ9.e30.c2ln`;
    // As Attesto's issuer: the reference names the issuer's salt of digest = SHA-256(salt || SHA-256(issuer JWT)).
    let reference: Record<string, unknown> | undefined;
    if (body.is_on_chain === true) {
      const salt = randomBytes(32);
      const jwtDigest = createHash("sha256").update(credential.split("~")[0]!).digest();
      const digest = createHash("sha256").update(salt).update(jwtDigest).digest("hex");
      reference = {
        chain: "ledger",
        object_id: randomUUID(),
        state: "pending",
        issuer_salt: salt.toString("hex"),
        digest,
      };
      state.notarized.push({ objectId: reference.object_id as string, digest });
    }
    const item = { credential, ...(reference ? { reference } : {}), ...state.behaviour.issuerIds };
    const notification = state.behaviour.notification ? { notification_id: randomUUID() } : {};
    return reply
      .header("cache-control", "no-store")
      .send(
        state.behaviour.legacyResponse ? { credential, ...notification } : { credentials: [item], ...notification },
      );
  });

  baseUrl = await listen(app);
  statusList.uri = `${baseUrl}/status-lists/${statusListGeneration}`;
  chain = await createTestChain("issuer-double", { uris: [issuerId()], dnsNames: [new URL(baseUrl).hostname] });
  foreignChain = await createTestChain("other-issuer", { uris: ["https://other-issuer.example/acme"] });

  return {
    baseUrl,
    issuerId: issuerId(),
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(value) {
      state.behaviour = value;
    },
    requests: state.requests,
    credentialRequests: state.credentialRequests,
    notarized: state.notarized,
    notifications: state.notifications,
    statusList,
    metadataOverrides: state.metadataOverrides,
    issuerDid() {
      if (state.behaviour.signing === "did:ledger") return ledgerDid!.did;
      if (state.behaviour.signing === "did:key") return didKey;
      return issuerId();
    },
    offer(options = {}) {
      const offerId = randomUUID();
      const code = randomBytes(16).toString("base64url");
      const configurationIds = options.configurationIds ?? ["diploma"];
      codes.set(code, { used: false, configurationIds, ...(options.txCode ? { txCode: options.txCode } : {}) });
      const document = {
        credential_issuer: issuerId(),
        credential_configuration_ids: configurationIds,
        grants: options.grants ?? {
          [PRE_AUTH]: {
            "pre-authorized_code": code,
            ...(options.txCode ? { tx_code: { input_mode: "numeric", length: options.txCode.length } } : {}),
          },
        },
        ...(options.expiresAt ? { expires_at: options.expiresAt } : {}),
        ...options.documentOverrides,
      };
      offers.set(offerId, { document, status: options.status ?? 200 });
      const link = options.byValue
        ? `openid-credential-offer://?credential_offer=${encodeURIComponent(JSON.stringify(document))}`
        : `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(`${baseUrl}/offers/${offerId}`)}`;
      return { link, code, offerId };
    },
    reset() {
      state.behaviour = defaults();
      state.requests.length = 0;
      state.credentialRequests.length = 0;
      state.notifications.length = 0;
      statusBytes.fill(0);
      statusListGeneration += 1;
      Object.assign(statusList, {
        uri: `${baseUrl}/status-lists/${statusListGeneration}`,
        ttl: 10,
        unavailable: false,
        foreignKey: false,
        fetches: 0,
      });
      for (const key of Object.keys(state.metadataOverrides)) delete state.metadataOverrides[key];
    },
    close: () => app.close(),
  };
}
