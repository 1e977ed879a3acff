import { findCaRows, insertCaRowOnce } from "./ca.store.js";
import { base64Der, ecdsaSigningKey } from "./certificate-tools.js";
import { createIssuingCaCertificate, createRootCaCertificate } from "./create-ca-certificates.js";
import type { IssuingCa, IssuingCaSource } from "./issuing-ca.js";
import type { CustodyDb } from "./key.store.js";
import { generatePrivateKey } from "./key-material.js";
import type { KeyVault } from "./key-vault.js";
import { PLATFORM_TENANT } from "./tenant.js";
import { x509 } from "./x509.js";

/** Another replica stored its CA first; this transaction rolls back and uses that one. */
class CaAlreadyStored extends Error {}

/**
 * The embedded mode's CA: a P-256 root and an issuing CA signed by it, generated on first use and
 * stored (certificates in `custody_ca`, keys in custody under the platform tenant). Replicas racing
 * on first use each try to insert the `root` row with ON CONFLICT DO NOTHING inside the transaction
 * that also stores the keys and the `issuing` row; the losers roll back and read the winner's CA.
 */
export function generatedIssuingCa(options: {
  db: CustodyDb;
  vault: KeyVault;
  now: () => Date;
  /** CA_COUNTRY: the countryName of a CA generated now (a stored CA keeps its own). */
  country: string;
}): IssuingCaSource {
  const { db, vault, now, country } = options;

  async function read(): Promise<IssuingCa | undefined> {
    const { root, issuing } = await findCaRows(db);
    if (!root || !issuing) return undefined;
    const { privateKey } = await vault.load(PLATFORM_TENANT, issuing.key_id);
    const certificate = new x509.X509Certificate(issuing.cert_pem);
    return {
      certificate,
      signingKey: await ecdsaSigningKey(privateKey),
      chain: [base64Der(certificate)],
      trustAnchor: base64Der(new x509.X509Certificate(root.cert_pem)),
    };
  }

  /** Generates and stores a CA; undefined when another replica stored one first. */
  async function create(): Promise<IssuingCa | undefined> {
    const issuedAt = now();
    const rootKey = generatePrivateKey("ES256");
    const issuingKey = generatePrivateKey("ES256");
    const root = await createRootCaCertificate(rootKey, issuedAt, country);
    const issuing = await createIssuingCaCertificate({ privateKey: issuingKey, root, rootKey, now: issuedAt, country });
    try {
      await db.transaction().execute(async (trx) => {
        const heldRoot = await vault.hold(trx, PLATFORM_TENANT, "ES256", rootKey);
        const heldIssuing = await vault.hold(trx, PLATFORM_TENANT, "ES256", issuingKey);
        const won = await insertCaRowOnce(trx, { id: "root", cert_pem: root.toString("pem"), key_id: heldRoot.keyId });
        if (!won) throw new CaAlreadyStored();
        await insertCaRowOnce(trx, { id: "issuing", cert_pem: issuing.toString("pem"), key_id: heldIssuing.keyId });
      });
    } catch (error) {
      if (error instanceof CaAlreadyStored) return undefined;
      throw error;
    }
    return {
      certificate: issuing,
      signingKey: await ecdsaSigningKey(issuingKey),
      chain: [base64Der(issuing)],
      trustAnchor: base64Der(root),
    };
  }

  async function readOrCreate(): Promise<IssuingCa> {
    const stored = (await read()) ?? (await create()) ?? (await read());
    if (!stored) throw new Error("the platform CA was not stored");
    return stored;
  }

  let issuingCa: Promise<IssuingCa> | undefined;
  return {
    get() {
      issuingCa ??= readOrCreate().catch((error: unknown) => {
        // Let the next call retry (the database may have been briefly unreachable).
        issuingCa = undefined;
        throw error;
      });
      return issuingCa;
    },
  };
}
