import { createPublicKey } from "node:crypto";
import { type Certificate, parseBase64DerCertificate } from "@attesto/protocol";

/** An `x5c` chain that does not hold together; the message is safe to show. */
export class X5cIntegrityError extends Error {
  override name = "X5cIntegrityError";
}

export interface CheckedX5c {
  leaf: Certificate;
  leafPublicJwk: Record<string, unknown>;
}

/**
 * An `x5c` chain as a wallet can check it without a trust list: standard base64 DER, each
 * certificate signed by the next, every certificate within its validity period. Whether the chain
 * leads to a trusted root is the relying party's decision, not the wallet's.
 */
export async function verifyX5cIntegrity(x5c: unknown, now: Date, skewSeconds: number): Promise<CheckedX5c> {
  if (!Array.isArray(x5c) || x5c.length === 0) throw new X5cIntegrityError("x5c must be a non-empty array");
  let chain: Certificate[];
  try {
    chain = x5c.map((entry) => parseBase64DerCertificate(entry as string));
  } catch {
    throw new X5cIntegrityError("x5c holds a certificate that is not standard base64 DER");
  }
  const skew = skewSeconds * 1000;
  for (const [index, certificate] of chain.entries()) {
    if (now.getTime() + skew < certificate.notBefore.getTime()) {
      throw new X5cIntegrityError(`x5c certificate ${index} is not valid yet`);
    }
    if (now.getTime() - skew > certificate.notAfter.getTime()) {
      throw new X5cIntegrityError(`x5c certificate ${index} has expired`);
    }
    const issuer = chain[index + 1];
    if (!issuer) break;
    let signed = false;
    try {
      signed =
        certificate.issuer === issuer.subject && (await certificate.verify({ publicKey: issuer, signatureOnly: true }));
    } catch {
      signed = false;
    }
    if (!signed) throw new X5cIntegrityError(`x5c certificate ${index} is not signed by the next one`);
  }
  const leaf = chain[0]!;
  let leafPublicJwk: Record<string, unknown>;
  try {
    leafPublicJwk = createPublicKey({ key: Buffer.from(leaf.publicKey.rawData), format: "der", type: "spki" }).export({
      format: "jwk",
    }) as Record<string, unknown>;
  } catch {
    throw new X5cIntegrityError("the x5c leaf certificate's public key cannot be read");
  }
  return { leaf, leafPublicJwk };
}
