import { randomBytes } from "node:crypto";
import { ed25519JwkFromSeed, ed25519PublicJwk } from "@attesto/protocol";
import { importJWK, jwtVerify } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { createTestLedger, sha256Hex, type TestLedger } from "./test-ledger.js";

const kek = (id: string) => `${id}:${randomBytes(32).toString("base64url")}`;

describe("the checkpoint-signing key", () => {
  let ledger: TestLedger | undefined;
  afterEach(async () => {
    await ledger?.close();
    ledger = undefined;
  });

  const keyRows = () =>
    ledger!.db
      .selectFrom("ledger_keys")
      .select(["purpose", "sealed_private_jwk", "private_jwk", "public_jwk"])
      .execute();

  it("is generated once, sealed under the key-encryption key, and kept across restarts and replicas", async () => {
    const keys = kek("k1");
    ledger = await createTestLedger({ KEY_ENCRYPTION_KEYS: keys });
    const own = await ledger.dependencies.signer.publicJwk();
    const replicas = [ledger.sibling(), ledger.sibling()];
    for (const replica of replicas) expect(await replica.dependencies.signer.publicJwk()).toEqual(own);
    expect(await keyRows()).toEqual([
      {
        purpose: "checkpoint-signing",
        sealed_private_jwk: expect.stringMatching(/^v1\.k1\./),
        private_jwk: null,
        public_jwk: { kty: "OKP", crv: "Ed25519", x: own.x },
      },
    ]);
  });

  it("is re-sealed under the new key-encryption key after a rotation", async () => {
    const [oldKek, newKek] = [kek("old"), kek("new")];
    ledger = await createTestLedger({ KEY_ENCRYPTION_KEYS: oldKek });
    const own = await ledger.dependencies.signer.publicJwk();
    const rotated = ledger.sibling({ KEY_ENCRYPTION_KEYS: `${newKek},${oldKek}` });
    expect(await rotated.dependencies.signer.publicJwk()).toEqual(own);
    expect((await keyRows())[0]!.sealed_private_jwk).toMatch(/^v1\.new\./);
    const newOnly = ledger.sibling({ KEY_ENCRYPTION_KEYS: newKek });
    expect(await newOnly.dependencies.signer.publicJwk()).toEqual(own);
  });

  it("cannot be used without the key-encryption key, and nothing is signed with another key", async () => {
    ledger = await createTestLedger({ KEY_ENCRYPTION_KEYS: kek("k1") });
    await ledger.dependencies.signer.publicJwk();
    const withoutKek = ledger.sibling({ KEY_ENCRYPTION_KEYS: "" });
    await expect(withoutKek.dependencies.signer.publicJwk()).rejects.toThrow(
      "the ledger's checkpoint-signing key is encrypted at rest: KEY_ENCRYPTION_KEYS must be configured",
    );
    await expect(ledger.sibling({ KEY_ENCRYPTION_KEYS: kek("k1") }).dependencies.signer.publicJwk()).rejects.toThrow(
      /cannot be opened/,
    );
  });

  it("is stored in clear without key-encryption keys, and sealed once they are configured", async () => {
    ledger = await createTestLedger();
    const own = await ledger.dependencies.signer.publicJwk();
    expect((await keyRows())[0]).toMatchObject({ sealed_private_jwk: null, private_jwk: { x: own.x } });
    const sealed = ledger.sibling({ KEY_ENCRYPTION_KEYS: kek("k1") });
    expect(await sealed.dependencies.signer.publicJwk()).toEqual(own);
    expect((await keyRows())[0]).toMatchObject({
      sealed_private_jwk: expect.stringMatching(/^v1\.k1\./),
      private_jwk: null,
    });
  });

  it("comes from LEDGER_SIGNING_KEY when configured, and is then not stored", async () => {
    const seed = Buffer.alloc(32, 7);
    ledger = await createTestLedger({ LEDGER_SIGNING_KEY: seed.toString("base64url") });
    const publicJwk = await ledger.dependencies.signer.publicJwk();
    expect(publicJwk.x).toBe(ed25519PublicJwk(ed25519JwkFromSeed(seed)).x);
    expect(await keyRows()).toEqual([]);
    const { objectId } = await ledger.client.notarize({ digest: sha256Hex("configured") });
    const { checkpoint } = await ledger.client.getRecord({ objectId });
    const { protectedHeader } = await jwtVerify(checkpoint!.signatureJws, await importJWK(publicJwk, "EdDSA"), {
      typ: "ledger-checkpoint+jwt",
    });
    expect(protectedHeader.kid).toBe(publicJwk.kid);
  });
});
