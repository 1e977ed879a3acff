import "reflect-metadata";
import { createHash, createPrivateKey, randomBytes, sign, webcrypto } from "node:crypto";
import {
  didKeyFromPublicJwk,
  ed25519PublicJwk,
  generateEd25519Jwk,
  generateP256Jwk,
  p256PublicJwk,
} from "@attesto/protocol";
import * as x509 from "@peculiar/x509";
import { type BitsPerStatus, StatusList } from "@sd-jwt/jwt-status-list";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import type { PlatformEdges } from "./edges.js";

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

export type PrivateJwk = { kty: string; crv: string; x: string; y?: string; d: string };

export const PID_VCT = "https://schemas.attesto.test/schemas/person-identification-data/v1";

export const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");

/** SHA-256 as @sd-jwt's hasher wants it. */
export const sha256 = (data: string | ArrayBuffer) =>
  new Uint8Array(
    createHash("sha256")
      .update(typeof data === "string" ? data : Buffer.from(data))
      .digest(),
  );

/** A JWS signer over a private JWK, as the issuer signs (Ed25519 -> EdDSA, P-256 -> ES256 P1363). */
export function jwsSigner(jwk: PrivateJwk) {
  const key = createPrivateKey({ key: jwk as never, format: "jwk" });
  return async (input: string) =>
    (jwk.kty === "OKP"
      ? sign(null, Buffer.from(input), key)
      : sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" })
    ).toString("base64url");
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** An issuer as the platform's credential issuer would be: a signing key and how it is referenced. */
export interface TestIssuer {
  iss: string;
  alg: "EdDSA" | "ES256";
  privateJwk: PrivateJwk;
  header: Record<string, unknown>;
}

/** did:key issuer (EdDSA, kid = did:key DID URL); registered on the platform double when `edges` is given. */
export function didKeyIssuer(edges?: PlatformEdges): TestIssuer {
  const privateJwk = generateEd25519Jwk();
  const did = didKeyFromPublicJwk(privateJwk);
  edges?.registered.dids.add(did);
  return { iss: did, alg: "EdDSA", privateJwk, header: { kid: `${did}#${did.slice("did:key:".length)}` } };
}

/**
 * did:ledger issuer (EdDSA, kid = <did>#key-1) on the ledger double, and (unless `registered` is
 * false) registered on the platform as a tenant's DID.
 */
export function didLedgerIssuer(
  edges: PlatformEdges,
  options: { deactivated?: boolean; did?: string; registered?: boolean } = {},
): TestIssuer {
  const privateJwk = generateEd25519Jwk();
  const did = options.did ?? `did:ledger:${randomBytes(16).toString("hex")}`;
  const keyId = `${did}#key-1`;
  if (options.registered !== false) edges.registered.dids.add(did);
  edges.dids.set(did, {
    deactivated: options.deactivated ?? false,
    document: {
      "@context": ["https://www.w3.org/ns/did/v1"],
      id: did,
      verificationMethod: [
        { id: keyId, type: "JsonWebKey2020", controller: did, publicKeyJwk: ed25519PublicJwk(privateJwk) },
      ],
      authentication: [keyId],
      assertionMethod: [keyId],
    },
  });
  return { iss: did, alg: "EdDSA", privateJwk, header: { kid: keyId } };
}

const ecdsa = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
const DAY_MS = 24 * 3600 * 1000;

async function certificate(options: {
  subject: string;
  issuer?: { certificate: x509.X509Certificate; keys: webcrypto.CryptoKeyPair };
  ca: boolean;
  notAfter?: Date;
  subjectAltNames?: { type: "url" | "dns"; value: string }[];
}) {
  const keys = (await webcrypto.subtle.generateKey(ecdsa, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: randomBytes(8).toString("hex"),
    subject: options.subject,
    issuer: options.issuer?.certificate.subject ?? options.subject,
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: options.notAfter ?? new Date(Date.now() + 365 * DAY_MS),
    signingAlgorithm: ecdsa,
    publicKey: keys.publicKey,
    signingKey: options.issuer?.keys.privateKey ?? keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(options.ca, undefined, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ...(options.issuer ? [await x509.AuthorityKeyIdentifierExtension.create(options.issuer.keys.publicKey)] : []),
      ...(options.subjectAltNames ? [new x509.SubjectAlternativeNameExtension(options.subjectAltNames)] : []),
    ],
  });
  return { certificate, keys };
}

const base64Der = (c: x509.X509Certificate) => Buffer.from(c.rawData).toString("base64");

export interface X509Hierarchy {
  rootBase64: string;
  rootPem: string;
  /** base64url AKI of the issuing CA certificate (= the root's key id): a DCQL `aki` value. */
  rootKeyIdentifier: string;
  /**
   * A leaf for `iss` (default https://issuer.attesto.test/acme) naming it in a URI SAN and its host
   * in a dNSName SAN, unless `subjectAltNames` says otherwise.
   */
  issuer(options?: {
    leafNotAfter?: Date;
    iss?: string;
    subjectAltNames?: { type: "url" | "dns"; value: string }[];
  }): Promise<TestIssuer>;
}

/** A platform-like CA: root -> issuing CA -> per-issuer leaf (ES256, x5c = [leaf, issuing CA]). */
export async function x509Hierarchy(name = "Attesto Test Root CA"): Promise<X509Hierarchy> {
  const root = await certificate({ subject: `CN=${name}`, ca: true });
  const issuing = await certificate({ subject: `CN=${name} Issuing CA`, issuer: root, ca: true });
  const rootKeyId = root.certificate.getExtension(x509.SubjectKeyIdentifierExtension)!.keyId;
  return {
    rootBase64: base64Der(root.certificate),
    rootPem: root.certificate.toString("pem"),
    rootKeyIdentifier: Buffer.from(rootKeyId, "hex").toString("base64url"),
    async issuer(options = {}) {
      const iss = options.iss ?? "https://issuer.attesto.test/acme";
      const leaf = await certificate({
        subject: "CN=Tenant signing key",
        issuer: issuing,
        ca: false,
        ...(options.leafNotAfter ? { notAfter: options.leafNotAfter } : {}),
        subjectAltNames: options.subjectAltNames ?? [
          { type: "url", value: iss },
          { type: "dns", value: new URL(iss).hostname },
        ],
      });
      const privateJwk = (await webcrypto.subtle.exportKey("jwk", leaf.keys.privateKey)) as PrivateJwk;
      return {
        iss,
        alg: "ES256",
        privateJwk,
        header: { x5c: [base64Der(leaf.certificate), base64Der(issuing.certificate)] },
      };
    },
  };
}

/** The holder's key pair (P-256), as a wallet holds it. */
export function holderKey() {
  const privateJwk = generateP256Jwk() as PrivateJwk;
  return { privateJwk, publicJwk: p256PublicJwk(privateJwk) };
}

export const PID_CLAIMS = {
  given_name: "Ada",
  family_name: "Lovelace",
  birthdate: "1815-12-10",
  address: { locality: "London", country: "GB" },
};

export interface IssueOptions {
  issuer: TestIssuer;
  holder: ReturnType<typeof holderKey> | undefined;
  claims?: Record<string, unknown>;
  vct?: string;
  iat?: number;
  exp?: number | null;
  nbf?: number;
  typ?: string;
  /** The `status` claim (always visible, as issuers put it): e.g. a Token Status List reference. */
  status?: Record<string, unknown>;
}

/** Issues an SD-JWT VC exactly as the platform issuer does (every claim disclosable, cnf.jwk, iat/exp). */
export async function issueCredential(options: IssueOptions): Promise<string> {
  const { issuer } = options;
  const claims = options.claims ?? PID_CLAIMS;
  const iat = options.iat ?? nowSeconds() - 60;
  const instance = new SDJwtVcInstance({
    hasher: sha256,
    hashAlg: "sha-256",
    saltGenerator: () => randomBytes(16).toString("base64url"),
    signAlg: issuer.alg,
    signer: jwsSigner(issuer.privateJwk),
  });
  const frame: Record<string, unknown> = { _sd: Object.keys(claims) };
  for (const [key, value] of Object.entries(claims)) {
    if (typeof value === "object" && value !== null && !Array.isArray(value)) frame[key] = { _sd: Object.keys(value) };
  }
  const exp = options.exp === undefined ? iat + 365 * 24 * 3600 : options.exp;
  return instance.issue(
    {
      iss: issuer.iss,
      iat,
      ...(exp === null ? {} : { exp }),
      ...(options.nbf === undefined ? {} : { nbf: options.nbf }),
      vct: options.vct ?? PID_VCT,
      ...(options.holder ? { cnf: { jwk: options.holder.publicJwk } } : {}),
      ...(options.status ? { status: options.status as never } : {}),
      ...claims,
    },
    frame as never,
    { header: { typ: options.typ ?? "dc+sd-jwt", ...issuer.header } },
  );
}

/**
 * A Status List Token (draft-ietf-oauth-status-list) signed by `issuer` as its credentials are
 * (same key header), the list encoded by the OWF @sd-jwt/jwt-status-list library.
 */
export async function statusListToken(
  issuer: TestIssuer,
  options: {
    uri: string;
    statuses: number[];
    bits?: BitsPerStatus;
    iat?: number;
    exp?: number;
    ttl?: number;
    iss?: string;
    header?: Record<string, unknown>;
  },
): Promise<string> {
  const header = { alg: issuer.alg, typ: "statuslist+jwt", ...issuer.header, ...options.header };
  const payload = {
    sub: options.uri,
    iat: options.iat ?? nowSeconds() - 10,
    ...(options.exp === undefined ? {} : { exp: options.exp }),
    ...(options.ttl === undefined ? {} : { ttl: options.ttl }),
    ...(options.iss === undefined ? {} : { iss: options.iss }),
    status_list: {
      bits: options.bits ?? 2,
      lst: new StatusList(options.statuses, options.bits ?? 2).compressStatusList(),
    },
  };
  const input = `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
  return `${input}.${await jwsSigner(issuer.privateJwk)(input)}`;
}

export interface KeyBinding {
  aud: string;
  nonce: string;
  iat?: number;
}

/** The wallet's presentation: the chosen disclosures and, with `kb`, a KB-JWT signed by the holder key. */
export async function presentCredential(
  credential: string,
  disclose: Record<string, unknown>,
  holder: ReturnType<typeof holderKey> | undefined,
  kb: KeyBinding | undefined,
): Promise<string> {
  const instance = new SDJwtVcInstance({
    hasher: sha256,
    hashAlg: "sha-256",
    ...(holder ? { kbSignAlg: "ES256", kbSigner: jwsSigner(holder.privateJwk) } : {}),
  });
  return instance.present(
    credential,
    disclose as never,
    kb ? { kb: { payload: { aud: kb.aud, nonce: kb.nonce, iat: kb.iat ?? nowSeconds() } as never } } : undefined,
  );
}
