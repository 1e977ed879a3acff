import { randomInt } from "node:crypto";
import {
  CoseKey,
  DeviceKey,
  DeviceKeyInfo,
  Header,
  IssuerAuth,
  IssuerNamespaces,
  IssuerSigned,
  IssuerSignedItem,
  KeyType,
  MobileSecurityObject,
  ProtectedHeaders,
  TypedMap,
  UnprotectedHeaders,
  ValidityInfo,
  ValueDigests,
} from "@owf/mdoc";
import { COSE_ALGORITHMS, type CoseSignatureAlgorithmName } from "./cose-algorithms.js";
import { type CoseSign, createMdocContext } from "./mdoc-context.js";

/** Bytes of random salt per element (ISO 18013-5 asks for at least 16). */
export const MDOC_SALT_BYTES = 32;

/** A Token Status List reference as the MSO carries it (`status: { status_list: { idx, uri } }`). */
export interface MdocStatusListReference {
  idx: number;
  uri: string;
}

export interface IssueMdocInput {
  docType: string;
  /**
   * Element values per namespace, already in their CBOR form: `Uint8Array` for bstr, `Date` for
   * tdate (tag 0), `mdocFullDate("YYYY-MM-DD")` for full-date (tag 1004), plain JSON otherwise.
   */
  namespaces: Record<string, Record<string, unknown>>;
  /** The holder's public key (JWK) from the proof: becomes `deviceKeyInfo.deviceKey`. */
  deviceKey: Record<string, unknown>;
  validity: { signed: Date; validFrom: Date; validUntil: Date; expectedUpdate?: Date };
  status?: MdocStatusListReference;
  /** DER certificates for `x5chain`, leaf (document signer) first. */
  certificates: Uint8Array[];
  algorithm: CoseSignatureAlgorithmName;
  /** Produces the signature; the private key never reaches this code. */
  sign: CoseSign;
}

/** The digest ids 0..n-1 in random order (unique per namespace, not revealing element order). */
function shuffledDigestIds(count: number): number[] {
  const ids = Array.from({ length: count }, (_, index) => index);
  for (let index = count - 1; index > 0; index--) {
    const other = randomInt(index + 1);
    [ids[index], ids[other]] = [ids[other] as number, ids[index] as number];
  }
  return ids;
}

/**
 * Issues one mdoc: an ISO 18013-5 `IssuerSigned` (name spaces with salted elements, and `issuerAuth`,
 * a COSE_Sign1 over the MobileSecurityObject with `alg` protected and `x5chain` unprotected).
 * Returns it base64url-encoded as OID4VCI 1.0 Appendix A.2 delivers it. Each call draws fresh salts
 * and digest ids, so a batch of calls gives distinct MSOs.
 */
export async function issueMdoc(input: IssueMdocInput): Promise<string> {
  const context = createMdocContext({ sign: input.sign });
  const { random } = context.crypto;
  const issuerNamespaces = new Map<string, IssuerSignedItem[]>();
  const digests = new Map<string, Map<number, Uint8Array>>();
  for (const [namespace, elements] of Object.entries(input.namespaces)) {
    const entries = Object.entries(elements);
    const ids = shuffledDigestIds(entries.length);
    const items = entries.map(([elementIdentifier, elementValue], index) =>
      IssuerSignedItem.fromOptions({
        digestId: ids[index] as number,
        random: random(MDOC_SALT_BYTES),
        elementIdentifier,
        elementValue,
      }),
    );
    const namespaceDigests = new Map<number, Uint8Array>();
    for (const item of items) {
      const bytes = item.encode({ asDataItem: true });
      namespaceDigests.set(item.digestId, await context.crypto.digest({ digestAlgorithm: "SHA-256", bytes }));
    }
    issuerNamespaces.set(namespace, items);
    digests.set(namespace, namespaceDigests);
  }
  const mso = MobileSecurityObject.fromDecodedStructure(
    new TypedMap<Record<string, unknown>>([
      ["version", "1.0"],
      ["digestAlgorithm", "SHA-256"],
      ["valueDigests", ValueDigests.create({ digests })],
      ["deviceKeyInfo", DeviceKeyInfo.create({ deviceKey: DeviceKey.fromJwk(input.deviceKey) })],
      ["docType", input.docType],
      ["validityInfo", ValidityInfo.create(input.validity)],
      ...(input.status
        ? [["status", new Map([["status_list", new Map<string, unknown>(Object.entries(input.status))]])] as const]
        : []),
    ]) as never,
  );
  const algorithm = COSE_ALGORITHMS[input.algorithm];
  const [leaf] = input.certificates;
  if (!leaf) throw new Error("issueMdoc needs the document signer certificate");
  const issuerAuth = await IssuerAuth.create(
    {
      payload: mso,
      protectedHeaders: ProtectedHeaders.create({ protectedHeaders: new Map([[Header.Algorithm, algorithm]]) }),
      unprotectedHeaders: UnprotectedHeaders.create({
        unprotectedHeaders: new Map<number, unknown>([
          [Header.X5Chain, input.certificates.length === 1 ? leaf : input.certificates],
        ]),
      }),
      signingKey: CoseKey.create({ keyType: KeyType.Ec }),
      algorithm,
    },
    context,
  );
  const issuerSigned = IssuerSigned.create({
    issuerNamespaces: IssuerNamespaces.create({ issuerNamespaces }),
    issuerAuth,
  });
  return issuerSigned.encodedForOid4Vci;
}
