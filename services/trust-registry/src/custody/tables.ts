import type { ColumnType, Generated, JSONColumnType } from "kysely";
import type { KeyAlgorithm, PublicJwk } from "./key-custody.js";

/** bytea (format-0 rows only): written from bytes, read back as a Buffer. */
type Bytes = ColumnType<Buffer | null, Uint8Array | null, Uint8Array | null>;

/**
 * `custody_keys`: one row per held key, written once by generate/import (or by certificate and CA
 * issuance); only the wrapping (`kek_id`, `sealed_private_key`) changes afterwards, on RewrapKeys.
 */
export interface CustodyKeysTable {
  /** Random UUID, the key's handle for callers. */
  key_id: string;
  /** Owner; the reserved platform tenant for CA keys. */
  tenant: string;
  alg: KeyAlgorithm;
  /** Public JWK (kty, crv, x[, y]), as JSON. */
  public_jwk: JSONColumnType<PublicJwk>;
  /** The KEK wrapping the private key (in either form below). */
  kek_id: string;
  /** The runtime envelope (`createEnvelopeSealer`, context `custody-key:<tenant>/<key id>`) of the PKCS#8 DER key. */
  sealed_private_key: string | null;
  /** Format 0 (rows before migration 0104, until RewrapKeys): the envelope in columns; null afterwards. */
  wrapped_dek: Bytes;
  iv: Bytes;
  tag: Bytes;
  ciphertext: Bytes;
  created_at: Generated<Date>;
}

/** `custody_certificates`: a tenant's current signing certificate; replaced on renewal. */
export interface CustodyCertificatesTable {
  tenant: string;
  /** The certified P-256 custody key (owned by the same tenant). */
  key_id: string;
  /** Standard base64 DER, leaf first, trust anchor excluded. */
  x5c: JSONColumnType<string[]>;
  not_after: Date;
  created_at: Generated<Date>;
}

/**
 * `custody_imported_certificates`: a tenant's own signing certificate (ImportSigningCertificate),
 * used instead of the platform-issued one while present.
 */
export interface CustodyImportedCertificatesTable {
  tenant: string;
  /** The imported P-256 custody key (owned by the same tenant). */
  key_id: string;
  /** Every certificate as imported, standard base64 DER, leaf first. */
  chain: JSONColumnType<string[]>;
  /** The chain without a trailing self-signed root. */
  x5c: JSONColumnType<string[]>;
  /** The trailing self-signed root, or "". */
  trust_anchor: string;
  /** SHA-256 of the leaf, lowercase hex. */
  fingerprint: string;
  not_after: Date;
  created_at: Generated<Date>;
}

/** `custody_ca`: the generated platform CA, rows `root` and `issuing`, inserted together once. */
export interface CustodyCaTable {
  id: "root" | "issuing";
  cert_pem: string;
  key_id: string;
  created_at: Generated<Date>;
}

export interface CustodyTables {
  custody_keys: CustodyKeysTable;
  custody_certificates: CustodyCertificatesTable;
  /** Migration 0105: a tenant's current verifier certificate (platform-issued, dNSName = the verifier's host). */
  custody_verifier_certificates: CustodyCertificatesTable;
  /** Migration 0105: a tenant's own verifier certificate (ImportVerifierCertificate). */
  custody_imported_verifier_certificates: CustodyImportedCertificatesTable;
  custody_ca: CustodyCaTable;
  custody_imported_certificates: CustodyImportedCertificatesTable;
}
