import { inflateSync } from "node:zlib";
import { Code, ConnectError } from "@connectrpc/connect";
import { decodeJwt } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { issuerServiceAs } from "./support/issuer-service.js";
import { decodeCredential } from "./support/sd-jwt.js";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import {
  didIssuer,
  diplomaRequest,
  ed25519Key,
  type HolderKey,
  p256Key,
  postCredential,
  redeemedOffer,
} from "./support/wallet.js";

/**
 * An issuer configuration's status_list_size (the Issuer resource's statusListSize): the tenant's
 * new status lists get that many entries, lists opened earlier keep theirs, and without it
 * STATUS_LIST_SIZE applies. Lists are decoded as the Token Status List draft defines them: `lst` is
 * the base64url of the ZLIB-compressed byte array, `bits` bits per entry.
 */
/** Entries of a Status List Token's list: its uncompressed bytes times 8 over `bits`. */
function entriesOf(statusListToken: string): number {
  const { status_list } = decodeJwt(statusListToken) as { status_list: { bits: number; lst: string } };
  return (inflateSync(Buffer.from(status_list.lst, "base64url")).length * 8) / status_list.bits;
}

describe("status_list_size of a tenant's issuer configuration", () => {
  let issuer: TestIssuer;
  let operator: ReturnType<typeof issuerServiceAs>;
  const holder = p256Key();

  beforeAll(async () => {
    issuer = await startTestIssuer();
    operator = issuerServiceAs(issuer, "operator");
  });
  afterAll(async () => {
    await issuer.close();
  });
  afterEach(async () => {
    await operator.deleteIssuerConfiguration({ tenant: "acme" });
  });

  const configure = (statusListSize: number) =>
    operator.applyIssuerConfiguration({
      configuration: {
        tenant: "acme",
        issuerName: "attesto-tenants/acme",
        credentialConfigurations: [{ id: "university-diploma" }],
        statusListSize,
      },
    });

  /** One credential signed on the DID path with `issuerKey`: the list it points to and its entries. */
  async function issueWith(issuerKey: HolderKey): Promise<{ uri: string; idx: number; entries: number }> {
    const { offerId } = await redeemedOffer(issuer, didIssuer(issuerKey));
    const response = await postCredential(issuer, {
      token: await issuer.accessToken({ offerId }),
      body: await diplomaRequest(issuer, [holder]),
    });
    expect(response.statusCode).toBe(200);
    const credential = response.json().credentials[0].credential as string;
    const { payload } = (await decodeCredential(credential)).jwt;
    const { uri, idx } = (payload as { status: { status_list: { uri: string; idx: number } } }).status.status_list;
    const list = await issuer.app.inject({ method: "GET", url: new URL(uri).pathname });
    expect(list.statusCode).toBe(200);
    const entries = entriesOf(list.body);
    expect(idx).toBeLessThan(entries);
    return { uri, idx, entries };
  }

  it("is stored and read back; 0 is the platform default and leaves the digest as without it", async () => {
    const unset = await operator.applyIssuerConfiguration({
      configuration: {
        tenant: "acme",
        issuerName: "attesto-tenants/acme",
        credentialConfigurations: [{ id: "university-diploma" }],
      },
    });
    expect(unset.configuration?.statusListSize).toBe(0);
    expect(await configure(0)).toMatchObject({
      changed: false,
      configuration: { digest: unset.configuration?.digest },
    });

    const sized = await configure(4096);
    expect(sized.changed).toBe(true);
    expect(sized.configuration?.digest).not.toBe(unset.configuration?.digest);
    expect((await operator.getIssuerConfiguration({ tenant: "acme" })).configuration?.statusListSize).toBe(4096);
    expect(await configure(4096)).toMatchObject({ changed: false });
  });

  it("new lists of the tenant get the configured size; a list opened earlier keeps its own", async () => {
    const earlierKey = ed25519Key();
    const before = await issueWith(earlierKey);
    expect(before.entries).toBe(2 ** 17);

    await configure(2048);
    // The open list of this signing key still has room: it is used as it is.
    const sameKey = await issueWith(earlierKey);
    expect(sameKey.uri).toBe(before.uri);
    expect(sameKey.entries).toBe(2 ** 17);
    // Another signing key needs a list of its own: opened with the configured size.
    const newKey = await issueWith(ed25519Key());
    expect(newKey.uri).not.toBe(before.uri);
    expect(newKey.entries).toBe(2048);

    // Without a configuration STATUS_LIST_SIZE applies again.
    await operator.deleteIssuerConfiguration({ tenant: "acme" });
    expect((await issueWith(ed25519Key())).entries).toBe(2 ** 17);
  });

  it("the largest and smallest sizes the rule allows are honoured", async () => {
    for (const size of [1024, 2 ** 20]) {
      await configure(size);
      expect((await issueWith(ed25519Key())).entries).toBe(size);
    }
  });

  it("a size outside the rule is INVALID_ARGUMENT naming status_list_size, and nothing is stored", async () => {
    await configure(4096);
    for (const size of [1000, 512, 2 ** 21]) {
      const failure = ConnectError.from(
        await configure(size).then(
          () => undefined,
          (error: unknown) => error,
        ),
      );
      expect([Code[failure.code], failure.rawMessage]).toEqual([
        "InvalidArgument",
        "status_list_size: must be 0 (platform default) or a power of two from 1024 to 1048576",
      ]);
    }
    expect((await operator.getIssuerConfiguration({ tenant: "acme" })).configuration?.statusListSize).toBe(4096);
  });
});
