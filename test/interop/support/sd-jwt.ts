import "reflect-metadata";
import { createHash, createPublicKey, type JsonWebKey, type KeyObject, sign, verify, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import type { WalletKey } from "./keys.js";

/**
 * Independent checks of what the platform issued, with third-party libraries only:
 * @sd-jwt/sd-jwt-vc for the SD-JWT VC (signature, disclosures, key binding), @peculiar/x509 for
 * the certificate chain, node:crypto for the signatures, the ledger's public DID resolver for
 * issuer DID keys. No @attesto code is involved.
 */

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

const sha256 = (data: string | ArrayBuffer) =>
  new Uint8Array(
    createHash("sha256")
      .update(typeof data === "string" ? data : Buffer.from(data))
      .digest(),
  );

const decodePart = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));

/** The issuer-signed JWT's header and payload, and the disclosures as [salt, name, value]. */
export function decodeSdJwt(credential: string) {
  const [jwt, ...rest] = credential.split("~");
  const [header, payload] = jwt!.split(".");
  const disclosures = rest.filter((part) => part.includes("."));
  const plain = rest.filter((part) => part !== "" && !part.includes("."));
  return {
    issuerJwt: jwt!,
    header: decodePart(header!) as Record<string, unknown>,
    payload: decodePart(payload!) as Record<string, unknown>,
    disclosures: plain.map((encoded) => ({ encoded, value: decodePart(encoded) as unknown[] })),
    keyBindingJwt: disclosures[0],
  };
}

/** Verifies a JWS signature (ES256 as IEEE P1363, EdDSA) over `data` with `key`. */
function verifyJws(key: KeyObject, data: string, signature: string): boolean {
  const bytes = Buffer.from(signature, "base64url");
  if (key.asymmetricKeyType === "ed25519") return verify(null, Buffer.from(data), key, bytes);
  return verify("sha256", Buffer.from(data), { key, dsaEncoding: "ieee-p1363" }, bytes);
}

/**
 * `@sd-jwt/sd-jwt-vc`'s verify with the issuer key: the JWS signature and every disclosure digest.
 * With `keyBinding` also the KB-JWT (signature by cnf.jwk, nonce, sd_hash).
 */
export async function verifySdJwtVc(credential: string, issuerKey: KeyObject, keyBinding?: { nonce: string }) {
  const instance = new SDJwtVcInstance({
    hasher: sha256,
    hashAlg: "sha-256",
    verifier: (data, signature) => verifyJws(issuerKey, data, signature),
    kbVerifier: (data, signature, payload) => {
      const jwk = (payload as { cnf?: { jwk?: JsonWebKey } }).cnf?.jwk;
      return jwk ? verifyJws(createPublicKey({ key: jwk, format: "jwk" }), data, signature) : false;
    },
  });
  const result = await instance.verify(credential, keyBinding ? { keyBindingNonce: keyBinding.nonce } : {});
  const claims = await instance.getClaims(credential);
  return { ...result, claims: claims as Record<string, unknown> };
}

export interface ResolvedDidKey {
  key: KeyObject;
  /** The DID document as the ledger's public resolver serves it. */
  document: {
    id: string;
    verificationMethod: Array<{ id: string; publicKeyJwk: JsonWebKey }>;
    assertionMethod: string[];
  };
}

/** The issuer key of a `kid` DID URL, through the ledger's public DID resolver (GET /1.0/identifiers/:did). */
export async function resolveDidKey(ledgerUrl: string, kid: string): Promise<ResolvedDidKey> {
  const did = kid.split("#")[0]!;
  const response = await fetch(`${ledgerUrl}/1.0/identifiers/${encodeURIComponent(did)}`);
  if (response.status !== 200) throw new Error(`resolving ${did}: HTTP ${response.status}`);
  const { didDocument } = (await response.json()) as { didDocument: ResolvedDidKey["document"] };
  const method = didDocument.verificationMethod.find((candidate) => candidate.id === kid);
  if (!method) throw new Error(`${did}'s document has no verification method ${kid}`);
  return { key: createPublicKey({ key: method.publicKeyJwk, format: "jwk" }), document: didDocument };
}

export interface ValidatedChain {
  leaf: x509.X509Certificate;
  /** The certificates from leaf to anchor, in order. */
  path: x509.X509Certificate[];
  leafKey: KeyObject;
}

/**
 * Validates an `x5c` header (standard base64 DER, leaf first, no anchor) up to one of `anchors`
 * with @peculiar/x509: each certificate signed by the next and valid now, issuers are CAs, the
 * leaf is not a CA and not self-signed, the chain ends at a trust anchor that is not in x5c.
 */
export async function validateX5c(x5c: string[], anchors: string[], now = new Date()): Promise<ValidatedChain> {
  const chain = x5c.map((der) => new x509.X509Certificate(Buffer.from(der, "base64")));
  const roots = anchors.map((der) => new x509.X509Certificate(Buffer.from(der, "base64")));
  const leaf = chain[0];
  if (!leaf) throw new Error("x5c is empty");
  if (await leaf.isSelfSigned()) throw new Error("the x5c leaf is self-signed");
  if (leaf.getExtension(x509.BasicConstraintsExtension)?.ca) throw new Error("the x5c leaf is a CA certificate");
  for (const root of roots) {
    if (chain.some((certificate) => certificate.equal(root))) throw new Error("x5c contains the trust anchor");
  }
  const path = await new x509.X509ChainBuilder({ certificates: [...chain.slice(1), ...roots] }).build(leaf);
  const anchor = path.at(-1)!;
  if (!roots.some((root) => root.equal(anchor))) throw new Error("the chain does not end at a platform trust anchor");
  if (path.length !== chain.length + 1) throw new Error("x5c is not exactly the path from leaf to anchor");
  for (const [index, certificate] of path.entries()) {
    const issuer = path[index + 1] ?? certificate;
    if (!(await certificate.verify({ publicKey: issuer.publicKey, date: now }))) {
      throw new Error(`${certificate.subject}: signature or validity period does not check out`);
    }
    if (index > 0 && !certificate.getExtension(x509.BasicConstraintsExtension)?.ca) {
      throw new Error(`${certificate.subject} issues certificates but is not a CA`);
    }
  }
  const leafKey = createPublicKey({ key: Buffer.from(leaf.publicKey.rawData), format: "der", type: "spki" });
  return { leaf, path, leafKey };
}

/** A holder's SD-JWT VC presentation made with @sd-jwt/sd-jwt-vc: chosen disclosures and a KB-JWT. */
export async function presentSdJwtVc(
  credential: string,
  disclose: Record<string, unknown>,
  holder: WalletKey,
  keyBinding: { aud: string; nonce: string; iat?: number },
): Promise<string> {
  const instance = new SDJwtVcInstance({
    hasher: sha256,
    hashAlg: "sha-256",
    kbSignAlg: holder.alg,
    kbSigner: (data) => {
      const signature =
        holder.alg === "EdDSA"
          ? sign(null, Buffer.from(data), holder.privateKey)
          : sign("sha256", Buffer.from(data), { key: holder.privateKey, dsaEncoding: "ieee-p1363" });
      return signature.toString("base64url");
    },
  });
  return instance.present(credential, disclose as never, {
    kb: {
      payload: {
        aud: keyBinding.aud,
        nonce: keyBinding.nonce,
        iat: keyBinding.iat ?? Math.floor(Date.now() / 1000),
      } as never,
    },
  });
}

/** What a salt must at least carry (RFC 9901: 128 bits). */
export const MIN_SALT_BYTES = 16;
