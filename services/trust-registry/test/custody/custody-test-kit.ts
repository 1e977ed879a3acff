import "reflect-metadata";
import { createCipheriv, randomBytes, webcrypto } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "@attesto/store";
import * as x509 from "@peculiar/x509";
import { compactVerify, importJWK, importX509 } from "jose";
import {
  createKeyCustody,
  custodyMigrations,
  type KeyCustody,
  type KeyCustodyOptions,
} from "../../src/custody/index.js";

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

export { x509 };

export const VALIDITY_DAYS = 30;

/** CREDENTIAL_ISSUER_URL of the test custody: tenant `t` signs credentials with `iss` = issuerOf(t). */
export const CREDENTIAL_ISSUER_URL = "https://issuer.example";
export const issuerOf = (tenant: string) => `${CREDENTIAL_ISSUER_URL}/${tenant}`;

/** A key-encryption key as KEY_ENCRYPTION_KEYS yields it. */
export const newKek = (id: string) => ({ id, key: new Uint8Array(randomBytes(32)) });

export const custodyDatabase = (): Promise<TestDatabase<unknown>> =>
  createTestDatabase({ prefix: "custody", migrations: custodyMigrations });

export function custodyOn(
  database: TestDatabase<unknown>,
  options: Partial<Omit<KeyCustodyOptions, "db">> & Pick<KeyCustodyOptions, "keyEncryptionKeys">,
): KeyCustody {
  return createKeyCustody({
    db: database.db,
    now: () => new Date(),
    signingCertValidityDays: VALIDITY_DAYS,
    credentialIssuerUrl: CREDENTIAL_ISSUER_URL,
    ...options,
  });
}

const b64u = (value: string | Uint8Array) => Buffer.from(value).toString("base64url");

/** A compact JWS whose signature comes from custody. */
export async function signJws(
  custody: KeyCustody,
  tenant: string,
  keyId: string,
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
): Promise<string> {
  const signingInput = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(payload))}`;
  const { signature } = await custody.sign(tenant, keyId, new TextEncoder().encode(signingInput));
  return `${signingInput}.${b64u(signature)}`;
}

/** Verifies a compact JWS with jose against a public JWK; returns the payload. */
export async function verifyWithJwk(jws: string, jwk: Record<string, unknown>, alg: string) {
  const { payload, protectedHeader } = await compactVerify(jws, await importJWK(jwk, alg), { algorithms: [alg] });
  return { payload: JSON.parse(new TextDecoder().decode(payload)) as unknown, protectedHeader };
}

export const pemOf = (base64Der: string) =>
  `-----BEGIN CERTIFICATE-----\n${base64Der.match(/.{1,64}/g)?.join("\n")}\n-----END CERTIFICATE-----\n`;

/** Verifies a compact JWS with jose against a certificate's public key. */
export async function verifyWithCertificate(jws: string, base64Der: string) {
  const { payload } = await compactVerify(jws, await importX509(pemOf(base64Der), "ES256"), { algorithms: ["ES256"] });
  return JSON.parse(new TextDecoder().decode(payload)) as unknown;
}

/**
 * A private key sealed in format 0, the columns custody wrote before migration 0104 (AES-256-GCM,
 * AAD JSON arrays naming purpose, KEK and owner): upgrade tests insert such rows.
 */
export function sealCustodyColumns(
  kek: { id: string; key: Uint8Array },
  owner: { tenant: string; keyId: string },
  secret: Uint8Array,
) {
  const aad = (purpose: string, ...rest: string[]) =>
    Buffer.from(JSON.stringify([`attesto.custody.${purpose}.v1`, ...rest, owner.tenant, owner.keyId]));
  const encrypt = (key: Uint8Array, plaintext: Uint8Array, additional: Buffer) => {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(additional);
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { iv, ciphertext, tag: cipher.getAuthTag() };
  };
  const dek = randomBytes(32);
  const body = encrypt(dek, secret, aad("secret"));
  const wrapped = encrypt(kek.key, dek, aad("dek", kek.id));
  return {
    kek_id: kek.id,
    wrapped_dek: Buffer.concat([wrapped.iv, wrapped.ciphertext, wrapped.tag]),
    iv: body.iv,
    tag: body.tag,
    ciphertext: body.ciphertext,
  };
}
