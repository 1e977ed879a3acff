import {
  createPrivateJwkSigner,
  ed25519PublicJwk,
  generateEd25519Jwk,
  issueSdJwtVc,
  parseSdJwtPresentation,
  sdDigest,
} from "@attesto/protocol";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import { claimPathOf } from "../../../src/domain/oid4vp/present-credentials.js";
import { createSdJwtPresentation, selectDisclosures } from "../../../src/domain/sd-jwt/create-presentation.js";

const claims = {
  given_name: "Ada",
  address: { street: "1 Main St", city: "London" },
  nationalities: ["GB", "FR"],
  courses: [{ title: "Analysis" }, { title: "Algebra" }],
};

async function credential() {
  const issuerKey = generateEd25519Jwk();
  const holderKey = generateEd25519Jwk();
  const issued = await issueSdJwtVc({
    signer: createPrivateJwkSigner(issuerKey, { kid: "did:example:issuer#1" }),
    issuer: "https://issuer.example",
    vct: "https://vct.example/x",
    claims,
    holderPublicJwk: ed25519PublicJwk(holderKey),
    issuedAt: Math.floor(Date.now() / 1000),
  });
  return { raw: issued.credential, holderKey };
}

const disclosed = (raw: string, paths: string[] | undefined) => {
  const selected = selectDisclosures(
    raw,
    paths?.map((path) => claimPathOf(path)!),
  );
  const presentation = `${raw.split("~")[0]}~${selected.map((d) => `${d.encoded}~`).join("")}`;
  return parseSdJwtPresentation(presentation).claims;
};

describe("selective disclosure by claim path", () => {
  it("claimPathOf: dotted names, digits as indices, JSON arrays; rejects empty segments", () => {
    expect(claimPathOf("address.street")).toEqual(["address", "street"]);
    expect(claimPathOf("courses.1.title")).toEqual(["courses", 1, "title"]);
    expect(claimPathOf('["a.b", 0]')).toEqual(["a.b", 0]);
    expect(claimPathOf("a..b")).toBeUndefined();
    expect(claimPathOf("[]")).toBeUndefined();
    expect(claimPathOf("")).toBeUndefined();
  });

  it("a nested claim brings its parent object, not its siblings", async () => {
    const { raw } = await credential();
    const shown = disclosed(raw, ["address.street"]);
    expect(shown.address).toEqual({ street: "1 Main St" });
    expect(shown).not.toHaveProperty("given_name");
    expect(shown).not.toHaveProperty("nationalities");
  });

  it("an object brings everything inside it; no paths brings everything", async () => {
    const { raw } = await credential();
    expect(disclosed(raw, ["address"]).address).toEqual(claims.address);
    const all = disclosed(raw, undefined);
    for (const [name, value] of Object.entries(claims)) expect(all[name]).toEqual(value);
    expect(disclosed(raw, []).given_name).toBeUndefined();
  });

  it("the KB-JWT binds aud, nonce, iat and sd_hash over exactly the presented SD-JWT", async () => {
    const { raw, holderKey } = await credential();
    const now = new Date();
    const presentation = await createSdJwtPresentation({
      raw,
      disclosures: selectDisclosures(raw, [["given_name"]]),
      holder: {
        did: "did:key:z",
        kid: "did:key:z#z",
        alg: "EdDSA",
        privateJwk: holderKey,
        publicJwk: ed25519PublicJwk(holderKey),
      },
      audience: "decentralized_identifier:did:key:zVerifier",
      nonce: "n-1",
      now,
    });
    const parts = presentation.split("~");
    const kbJwt = parts.at(-1)!;
    expect(decodeProtectedHeader(kbJwt)).toEqual({ typ: "kb+jwt", alg: "EdDSA" });
    expect(decodeJwt(kbJwt)).toEqual({
      aud: "decentralized_identifier:did:key:zVerifier",
      nonce: "n-1",
      iat: Math.floor(now.getTime() / 1000),
      sd_hash: sdDigest(`${parts.slice(0, -1).join("~")}~`, "sha-256"),
    });
    expect(parts).toHaveLength(3);
  });
});
