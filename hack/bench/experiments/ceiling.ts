import "reflect-metadata";
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type JsonWebKey,
  type KeyObject,
  randomBytes,
  sign,
  verify,
  webcrypto,
  X509Certificate,
} from "node:crypto";
import { cpus } from "node:os";
import { performance } from "node:perf_hooks";
import * as x509 from "@peculiar/x509";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { CompactEncrypt, calculateJwkThumbprint, compactDecrypt, exportJWK, importJWK, type JWK } from "jose";
import { DIPLOMA_CLAIMS } from "../flows.js";
import { clientKey, dpopProof, signJwt } from "../jose-lite.js";
import { table } from "../report.js";

/**
 * `npm run bench:experiment -- ceiling [seconds]`: the in-process ceiling: for each flow, the signatures, verifications, key imports, hashes,
 * HMACs, AES-GCM envelopes and JWE operations one flow costs (server and client side, since the
 * load generator shares the machine), done back to back in a loop with no HTTP, no database and no
 * RPC. Keys are imported where the services import them per request (JWKs from the wire, seeds
 * from envelopes), pre-imported where a service can keep them (its own signing keys).
 * Single-threaded; the machine ceiling is this rate times the number of cores.
 */

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

const sha256 = (data: string | ArrayBuffer) =>
  new Uint8Array(
    createHash("sha256")
      .update(typeof data === "string" ? data : Buffer.from(data))
      .digest(),
  );
const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");
const hmac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest("base64url");

function verifyJws(jws: string, key: KeyObject) {
  const [header, payload, signature] = jws.split(".");
  const input = Buffer.from(`${header}.${payload}`);
  const bytes = Buffer.from(signature!, "base64url");
  const ok =
    key.asymmetricKeyType === "ed25519"
      ? verify(null, input, key, bytes)
      : verify("sha256", input, { key, dsaEncoding: "ieee-p1363" }, bytes);
  if (!ok) throw new Error("signature");
}
const importJwk = (jwk: object) => createPublicKey({ key: jwk as JsonWebKey, format: "jwk" });
const payloadOf = (jws: string) => JSON.parse(Buffer.from(jws.split(".")[1]!, "base64url").toString());
const headerOf = (jws: string) => JSON.parse(Buffer.from(jws.split(".")[0]!, "base64url").toString());

/** The platform's envelope: a data key wrapped under the KEK, the secret under the data key. */
function gcm(key: Buffer, plaintext: Buffer) {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  return Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}
function ungcm(key: Buffer, sealed: Buffer) {
  const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
}
const kek = randomBytes(32);
function seal(secret: Buffer) {
  const dataKey = randomBytes(32);
  return { wrapped: gcm(kek, dataKey), body: gcm(dataKey, secret) };
}
const open = (sealed: ReturnType<typeof seal>) => ungcm(ungcm(kek, sealed.wrapped), sealed.body);

/** Service credentials are HS256 JWTs checked on every internal call. */
const serviceSecret = randomBytes(32);
const serviceCredential = (() => {
  const input = `${Buffer.from('{"alg":"HS256"}').toString("base64url")}.${Buffer.from('{"iss":"x","aud":"y"}').toString("base64url")}`;
  return `${input}.${hmac(serviceSecret, input)}`;
})();
function verifyServiceCredential() {
  const [h, p, s] = serviceCredential.split(".");
  if (hmac(serviceSecret, `${h}.${p}`) !== s) throw new Error("hmac");
  JSON.parse(Buffer.from(p!, "base64url").toString());
}

const nonceSecret = randomBytes(32);
const issueNonce = () => {
  const body = `${Date.now() + 300_000}.${randomBytes(16).toString("base64url")}`;
  return `${body}.${hmac(nonceSecret, body)}`;
};
const checkNonce = (nonce: string) => {
  const at = nonce.lastIndexOf(".");
  if (hmac(nonceSecret, nonce.slice(0, at)) !== nonce.slice(at + 1)) throw new Error("nonce");
};

function sdJwtIssuer(alg: "EdDSA" | "ES256", key: KeyObject, header: Record<string, unknown>) {
  const instance = new SDJwtVcInstance({
    hasher: sha256,
    hashAlg: "sha-256",
    saltGenerator: () => randomBytes(16).toString("base64url"),
    signAlg: alg,
    signer: (input) =>
      (alg === "EdDSA"
        ? sign(null, Buffer.from(input), key)
        : sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" })
      ).toString("base64url"),
  });
  const frame = {
    _sd: Object.keys(DIPLOMA_CLAIMS),
    degree: { _sd: ["type", "name"] },
    institution: { _sd: ["name", "country"] },
  };
  return (holderJwk: object) =>
    instance.issue(
      {
        iss: "https://issuer.example/tenant",
        iat: Math.floor(Date.now() / 1000),
        exp: Math.floor(Date.now() / 1000) + 3600,
        vct: "https://schemas.example/schemas/university-diploma/v1",
        cnf: { jwk: holderJwk },
        ...DIPLOMA_CLAIMS,
      },
      frame as never,
      { header: { typ: "dc+sd-jwt", ...header } },
    );
}

/** Verifies a presentation the way the verifier must: digests, issuer signature, KB-JWT, sd_hash. */
function verifyPresentation(vp: string, issuerKey: KeyObject, aud: string, nonce: string) {
  const parts = vp.split("~");
  const issuerJwt = parts[0]!;
  const kb = parts.at(-1)!;
  const disclosures = parts.slice(1, -1);
  verifyJws(issuerJwt, issuerKey);
  const payload = payloadOf(issuerJwt) as { _sd: string[]; cnf: { jwk: object } };
  const digests = new Set(payload._sd);
  for (const disclosure of disclosures) {
    if (!digests.has(createHash("sha256").update(disclosure).digest("base64url"))) throw new Error("digest");
  }
  verifyJws(kb, importJwk(payload.cnf.jwk));
  const kbPayload = payloadOf(kb) as { aud: string; nonce: string; sd_hash: string };
  const sdHash = createHash("sha256")
    .update(`${parts.slice(0, -1).join("~")}~`)
    .digest("base64url");
  if (kbPayload.aud !== aud || kbPayload.nonce !== nonce || kbPayload.sd_hash !== sdHash) throw new Error("kb");
  // The revocation check reads one entry of a status list token cached by its ttl: no crypto per flow.
}

function present(credential: string, holder: ReturnType<typeof clientKey>, aud: string, nonce: string) {
  const [issuerJwt, ...rest] = credential.split("~");
  const chosen = rest.filter((part) => {
    if (!part) return false;
    const name = JSON.parse(Buffer.from(part, "base64url").toString())[1];
    return name === "given_name" || name === "family_name";
  });
  const sdJwt = `${issuerJwt}~${chosen.join("~")}~`;
  const kb = signJwt(
    holder,
    { typ: "kb+jwt" },
    { iat: 1, aud, nonce, sd_hash: createHash("sha256").update(sdJwt).digest("base64url") },
  );
  return `${sdJwt}${kb}`;
}

async function x509Chain() {
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const make = async (
    subject: string,
    issuer: { cert: x509.X509Certificate; keys: webcrypto.CryptoKeyPair } | undefined,
    ca: boolean,
  ) => {
    const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomBytes(8).toString("hex"),
      subject,
      issuer: issuer?.cert.subject ?? subject,
      notBefore: new Date(Date.now() - 86_400_000),
      notAfter: new Date(Date.now() + 86_400_000),
      signingAlgorithm: alg,
      publicKey: keys.publicKey,
      signingKey: issuer?.keys.privateKey ?? keys.privateKey,
      extensions: [new x509.BasicConstraintsExtension(ca, undefined, true)],
    });
    return { cert, keys };
  };
  const root = await make("CN=Root", undefined, true);
  const issuing = await make("CN=Issuing", root, true);
  const leaf = await make("CN=Leaf", issuing, false);
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", leaf.keys.privateKey));
  return {
    x5c: [leaf.cert, issuing.cert].map((c) => Buffer.from(c.rawData).toString("base64")),
    anchor: new X509Certificate(Buffer.from(root.cert.rawData)),
    leafKey: createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" }),
  };
}

/** Validates x5c up to the anchor with node's X509Certificate (each signature, validity, CA flags). */
function validateChain(x5c: string[], anchor: X509Certificate): KeyObject {
  const chain = x5c.map((der) => new X509Certificate(Buffer.from(der, "base64")));
  const path = [...chain, anchor];
  const now = new Date();
  for (const [index, certificate] of path.entries()) {
    const issuer = path[index + 1] ?? certificate;
    if (!certificate.verify(issuer.publicKey)) throw new Error("chain");
    if (new Date(certificate.validTo) < now || new Date(certificate.validFrom) > now) throw new Error("validity");
    if (index > 0 && !certificate.ca) throw new Error("ca");
  }
  return chain[0]!.publicKey;
}

interface CeilingFlow {
  name: string;
  /** What one iteration does, for the report. */
  operations: string;
  run(): Promise<void>;
}

async function ceilingFlows(): Promise<Record<string, CeilingFlow>> {
  const accessTokenKey = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const issuerSeedJwk = generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" });
  const issuerPublic = createPublicKey(createPrivateKey({ key: issuerSeedJwk, format: "jwk" }));
  const rpSeedJwk = generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" });
  const chain = await x509Chain();
  const holder = clientKey("ES256");
  const dpopKey = clientKey("ES256");
  const apiKey = `attesto_production_${randomBytes(24).toString("hex")}`;
  const sdDid = sdJwtIssuer("EdDSA", createPrivateKey({ key: issuerSeedJwk, format: "jwk" }), {
    kid: "did:ledger:x#key-1",
  });
  const sdX509 = sdJwtIssuer("ES256", chain.leafKey, { x5c: chain.x5c });
  const didCredential = await sdDid(holder.publicJwk);
  const x509Credential = await sdX509(holder.publicJwk);
  const audience = "https://issuer.example/tenant";
  const accessToken = () =>
    signJwt(
      { alg: "ES256", privateKey: accessTokenKey.privateKey, publicJwk: { kty: "EC", crv: "P-256", x: "" } },
      { typ: "at+jwt" },
      { iss: "https://as.example", aud: audience, sub: "offer", exp: 2e9, iat: 1, jti: "j" },
    );
  const verifyAccessToken = (token: string) => {
    verifyJws(token, accessTokenKey.publicKey);
    payloadOf(token);
  };
  /** A DPoP proof as the server checks it: key from the header, signature, thumbprint, ath. */
  const verifyDpop = async (proof: string, token?: string) => {
    const header = headerOf(proof) as { jwk: JWK };
    verifyJws(proof, importJwk(header.jwk));
    await calculateJwkThumbprint(header.jwk, "sha256");
    if (token) createHash("sha256").update(token).digest("base64url");
  };
  const keyProof = (nonce: string) =>
    signJwt(holder, { typ: "openid4vci-proof+jwt", jwk: holder.publicJwk }, { aud: audience, iat: 1, nonce });
  const verifyKeyProof = async (proof: string) => {
    const header = headerOf(proof) as { jwk: JWK };
    verifyJws(proof, importJwk(header.jwk));
    checkNonce(payloadOf(proof).nonce);
    await calculateJwkThumbprint(header.jwk, "sha256");
  };

  const issuanceDid: CeilingFlow = {
    name: "issuance (DID, EdDSA, Bearer)",
    operations:
      "offer: SHA-256 API key, Ed25519 seed import and public-key match, 2 envelopes sealed, code SHA-256, 1 RPC credential; " +
      "offer document: 1 envelope opened; token: code SHA-256, ES256 access token signed, 1 RPC credential; nonce: HMAC; " +
      "credential: ES256 token verified, ES256 proof signed (client) and verified (JWK import, thumbprint), HMAC nonce, " +
      "envelope opened + Ed25519 import, SD-JWT VC issued (EdDSA, 10 disclosures), SHA-256 of the JWT",
    async run() {
      sha256Hex(apiKey);
      createPublicKey(createPrivateKey({ key: issuerSeedJwk, format: "jwk" }));
      const sealedKey = seal(Buffer.from(JSON.stringify(issuerSeedJwk)));
      const code = randomBytes(32).toString("base64url");
      sha256Hex(code);
      const sealedCode = seal(Buffer.from(code));
      verifyServiceCredential();
      open(sealedCode);
      sha256Hex(code);
      verifyServiceCredential();
      const token = accessToken();
      const nonce = issueNonce();
      verifyAccessToken(token);
      await verifyKeyProof(keyProof(nonce));
      const seed = JSON.parse(open(sealedKey).toString());
      const signer = createPrivateKey({ key: seed, format: "jwk" });
      void signer;
      const credential = await sdDid(holder.publicJwk);
      sha256Hex(credential.split("~")[0]!);
    },
  };

  const issuanceX509: CeilingFlow = {
    name: "issuance (X.509, ES256, DPoP)",
    operations:
      "offer: SHA-256 API key, 1 envelope sealed, code SHA-256; offer document: 1 envelope opened; " +
      "token: 2 DPoP proofs signed (client) and verified (JWK import, ES256, thumbprint), 3 HMAC nonces, code SHA-256, " +
      "ES256 access token signed, 1 RPC credential; nonce: HMAC; credential: 2 DPoP proofs signed and verified (+ath), " +
      "2 ES256 token verifications, 3 HMAC nonces, ES256 proof signed and verified, HMAC c_nonce, SD-JWT VC issued " +
      "(ES256, 10 disclosures; signed in key custody: 1 RPC credential), SHA-256 of the JWT",
    async run() {
      sha256Hex(apiKey);
      const code = randomBytes(32).toString("base64url");
      sha256Hex(code);
      const sealedCode = seal(Buffer.from(code));
      open(sealedCode);
      const tokenUrl = "https://as.example/v1/token";
      await verifyDpop(dpopProof(dpopKey, "POST", tokenUrl, {}));
      const asNonce = issueNonce();
      const proof = dpopProof(dpopKey, "POST", tokenUrl, { nonce: asNonce });
      await verifyDpop(proof);
      checkNonce(asNonce);
      sha256Hex(code);
      verifyServiceCredential();
      const token = accessToken();
      issueNonce();
      const cNonce = issueNonce();
      const credentialUrl = "https://issuer.example/credential";
      verifyAccessToken(token);
      await verifyDpop(dpopProof(dpopKey, "POST", credentialUrl, { accessToken: token }), token);
      const rsNonce = issueNonce();
      verifyAccessToken(token);
      await verifyDpop(dpopProof(dpopKey, "POST", credentialUrl, { accessToken: token, nonce: rsNonce }), token);
      checkNonce(rsNonce);
      await verifyKeyProof(keyProof(cNonce));
      verifyServiceCredential();
      const credential = await sdX509(holder.publicJwk);
      sha256Hex(credential.split("~")[0]!);
      issueNonce();
    },
  };

  const requestObject = (nonce: string, extra: Record<string, unknown> = {}) => {
    const key = createPrivateKey({ key: rpSeedJwk, format: "jwk" });
    const input = `${Buffer.from(JSON.stringify({ alg: "EdDSA", typ: "oauth-authz-req+jwt" })).toString("base64url")}.${Buffer.from(
      JSON.stringify({ nonce, state: nonce, client_id: "decentralized_identifier:did:key:z", ...extra }),
    ).toString("base64url")}`;
    return `${input}.${sign(null, Buffer.from(input), key).toString("base64url")}`;
  };

  const verificationDid: CeilingFlow = {
    name: "verification (DID-signed, direct_post)",
    operations:
      "request: SHA-256 API key, Ed25519 RP key imported and sealed; request object: envelope opened, Ed25519 import, " +
      "EdDSA signed; presentation: KB-JWT ES256 signed (client), sd_hash; verify: EdDSA issuer signature (DID key import), " +
      "2 disclosure digests, KB-JWT ES256 (cnf import), sd_hash, cached status list entry, 2 RPC credentials; result: SHA-256 API key",
    async run() {
      sha256Hex(apiKey);
      createPrivateKey({ key: rpSeedJwk, format: "jwk" });
      const sealed = seal(Buffer.from(rpSeedJwk.d!));
      open(sealed);
      const nonce = randomBytes(32).toString("base64url");
      requestObject(nonce);
      const vp = present(didCredential, holder, "decentralized_identifier:did:key:z", nonce);
      verifyPresentation(
        vp,
        importJwk(issuerPublic.export({ format: "jwk" })),
        "decentralized_identifier:did:key:z",
        nonce,
      );
      verifyServiceCredential();
      verifyServiceCredential();
      sha256Hex(apiKey);
    },
  };

  const verificationX509: CeilingFlow = {
    name: "verification (X.509-signed, direct_post.jwt)",
    operations:
      "request: SHA-256 API key, Ed25519 RP key imported, ephemeral P-256 key generated, 2 envelopes sealed; request object: " +
      "envelope opened, EdDSA signed; presentation: KB-JWT ES256 signed, ECDH-ES/A128GCM encrypted (client); verify: " +
      "envelope opened, JWE decrypted, x5c parsed and validated (2 ES256 certificate signatures), ES256 issuer signature, " +
      "2 disclosure digests, KB-JWT ES256, sd_hash, cached status list entry, 1 RPC credential; result: SHA-256 API key",
    async run() {
      sha256Hex(apiKey);
      createPrivateKey({ key: rpSeedJwk, format: "jwk" });
      const ephemeral = generateKeyPairSync("ec", { namedCurve: "P-256" });
      const ephemeralJwk = await exportJWK(ephemeral.privateKey);
      const sealedRp = seal(Buffer.from(rpSeedJwk.d!));
      const sealedEphemeral = seal(Buffer.from(JSON.stringify(ephemeralJwk)));
      open(sealedRp);
      const nonce = randomBytes(32).toString("base64url");
      const { d: _d, ...publicJwk } = ephemeralJwk;
      requestObject(nonce, { client_metadata: { jwks: { keys: [publicJwk] } } });
      const vp = present(x509Credential, holder, "decentralized_identifier:did:key:z", nonce);
      const jwe = await new CompactEncrypt(
        new TextEncoder().encode(JSON.stringify({ vp_token: { diploma: [vp] }, state: nonce })),
      )
        .setProtectedHeader({ alg: "ECDH-ES", enc: "A128GCM" })
        .encrypt(await importJWK(publicJwk, "ECDH-ES"));
      const privateJwk = JSON.parse(open(sealedEphemeral).toString());
      const { plaintext } = await compactDecrypt(jwe, await importJWK(privateJwk, "ECDH-ES"));
      const presented = (JSON.parse(new TextDecoder().decode(plaintext)) as { vp_token: { diploma: string[] } })
        .vp_token.diploma[0]!;
      const leafKey = validateChain(headerOf(presented.split("~")[0]!).x5c, chain.anchor);
      verifyPresentation(presented, leafKey, "decentralized_identifier:did:key:z", nonce);
      verifyServiceCredential();
      sha256Hex(apiKey);
    },
  };

  return {
    "issuance-did": issuanceDid,
    "issuance-x509": issuanceX509,
    "verification-did": verificationDid,
    "verification-x509": verificationX509,
  };
}

interface CeilingResult {
  flow: string;
  operations: string;
  /** Flows per second on one core. */
  perCore: number;
  /** perCore x cores: what the machine's CPUs could do if crypto were all there is. */
  machine: number;
}

/** Runs one ceiling flow in a loop for `seconds` (after a short warm-up) on this thread. */
async function measureCeiling(flow: CeilingFlow, seconds: number, cores: number): Promise<CeilingResult> {
  const warmUntil = performance.now() + 300;
  while (performance.now() < warmUntil) await flow.run();
  let iterations = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  while (performance.now() < until) {
    await flow.run();
    iterations++;
  }
  const perCore = iterations / ((performance.now() - started) / 1000);
  return {
    flow: flow.name,
    operations: flow.operations,
    perCore: Math.round(perCore),
    machine: Math.round(perCore * cores),
  };
}

const seconds = Number(process.argv[2] ?? 3);
const cores = cpus().length;
const rows: CeilingResult[] = [];
for (const flow of Object.values(await ceilingFlows())) rows.push(await measureCeiling(flow, seconds, cores));
process.stdout.write(
  `${table(
    ["flow", "operations", "flows/s one core", `x ${cores} cores`],
    rows.map((r) => [r.flow, r.operations, r.perCore, r.machine]),
  )}\n`,
);
