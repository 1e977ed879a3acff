import { issuerConfigurationV1 } from "@attesto/proto";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { issuerServiceAs } from "./support/issuer-service.js";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";
import { createOffer, didKeyOf, ed25519Key } from "./support/wallet.js";

const { SigningMode } = issuerConfigurationV1;
/** The init shape of an IssuerConfiguration message (plain fields, no $typeName). */
type ConfigurationInit = Exclude<
  MessageInitShape<typeof issuerConfigurationV1.IssuerConfigurationSchema>,
  issuerConfigurationV1.IssuerConfiguration
>;

const failureOf = async (call: Promise<unknown>) => {
  const error = ConnectError.from(
    await call.then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  return { code: Code[error.code], message: error.rawMessage };
};

const DIPLOMA_DISPLAY = {
  name: "ACME University Diploma",
  locale: "en-US",
  backgroundColor: "#12107C",
  textColor: "#FFFFFF",
  logoUri: "https://acme.example/logo.png",
  logoAltText: "ACME",
};

const declaration = (overrides: Partial<ConfigurationInit> = {}): ConfigurationInit => ({
  tenant: "acme",
  issuerName: "attesto-tenants/acme",
  credentialConfigurations: [{ id: "university-diploma", display: [DIPLOMA_DISPLAY] }],
  signingMode: SigningMode.X509,
  defaultOfferTtlSeconds: 1800,
  ...overrides,
});

describe("IssuerService (internal RPC for the operator) and its enforcement", () => {
  let issuer: TestIssuer;
  let operator: Client<typeof issuerConfigurationV1.IssuerService>;
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

  const metadata = async () =>
    (await issuer.app.inject({ method: "GET", url: "/.well-known/openid-credential-issuer/acme" })).json();

  it("applies idempotently by digest, reads back, and deletes idempotently", async () => {
    const first = await operator.applyIssuerConfiguration({ configuration: declaration() });
    expect(first.changed).toBe(true);
    expect(first.configuration).toMatchObject({
      tenant: "acme",
      issuerName: "attesto-tenants/acme",
      signingMode: SigningMode.X509,
      defaultOfferTtlSeconds: 1800,
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const again = await operator.applyIssuerConfiguration({ configuration: declaration({ digest: "ignored" }) });
    expect(again).toMatchObject({ changed: false, configuration: { digest: first.configuration?.digest } });
    expect(again.configuration?.updatedAt).toBe(first.configuration?.updatedAt);

    const read = await operator.getIssuerConfiguration({ tenant: "acme" });
    expect(read.configuration?.credentialConfigurations).toEqual([
      expect.objectContaining({ id: "university-diploma", display: [expect.objectContaining(DIPLOMA_DISPLAY)] }),
    ]);
    expect(read.configuration?.digest).toBe(first.configuration?.digest);

    const changed = await operator.applyIssuerConfiguration({
      configuration: declaration({ defaultOfferTtlSeconds: 600 }),
    });
    expect(changed.changed).toBe(true);
    expect(changed.configuration?.digest).not.toBe(first.configuration?.digest);

    expect(await operator.deleteIssuerConfiguration({ tenant: "acme" })).toMatchObject({ deleted: true });
    expect(await operator.deleteIssuerConfiguration({ tenant: "acme" })).toMatchObject({ deleted: false });
    expect(await failureOf(operator.getIssuerConfiguration({ tenant: "acme" }))).toEqual({
      code: "NotFound",
      message: "the tenant has no issuer configuration",
    });
  });

  it("metadata lists only the configured configurations, with the declared display", async () => {
    const before = await metadata();
    expect(Object.keys(before.credential_configurations_supported).sort()).toEqual([
      "employee-badge",
      "university-diploma",
    ]);
    await operator.applyIssuerConfiguration({ configuration: declaration() });
    const after = await metadata();
    expect(Object.keys(after.credential_configurations_supported)).toEqual(["university-diploma"]);
    const diploma = after.credential_configurations_supported["university-diploma"];
    const expected = [
      {
        name: "ACME University Diploma",
        locale: "en-US",
        background_color: "#12107C",
        text_color: "#FFFFFF",
        logo: { uri: "https://acme.example/logo.png", alt_text: "ACME" },
      },
    ];
    expect(diploma.display).toEqual(expected);
    expect(diploma.credential_metadata.display).toEqual(expected);
    // Claims still come from the type metadata.
    expect(diploma.credential_metadata.claims).toEqual(
      before.credential_configurations_supported["university-diploma"].credential_metadata.claims,
    );

    // Without a display override, the type's display stays.
    await operator.applyIssuerConfiguration({
      configuration: declaration({
        credentialConfigurations: [{ id: "university-diploma" }, { id: "employee-badge" }],
      }),
    });
    expect((await metadata()).credential_configurations_supported).toEqual(before.credential_configurations_supported);

    await operator.deleteIssuerConfiguration({ tenant: "acme" });
    expect(await metadata()).toEqual(before);
  });

  it("offers: the configured TTL is the default, an explicit expires_in wins, and limits still apply", async () => {
    await operator.applyIssuerConfiguration({ configuration: declaration({ defaultOfferTtlSeconds: 1800 }) });
    const now = issuer.clock.now.getTime();
    const defaulted = await createOffer(issuer);
    expect(defaulted.statusCode, defaulted.body).toBe(201);
    expect(Date.parse(defaulted.json().expires_at)).toBe(now + 1800_000);
    const explicit = await createOffer(issuer, { expires_in: 120 });
    expect(Date.parse(explicit.json().expires_at)).toBe(now + 120_000);
    const outOfRange = await createOffer(issuer, { expires_in: 59 });
    expect(outOfRange.statusCode).toBe(400);

    await operator.deleteIssuerConfiguration({ tenant: "acme" });
    expect(Date.parse((await createOffer(issuer)).json().expires_at)).toBe(now + 3600_000);
  });

  it("offers: a configuration the issuer does not offer is refused", async () => {
    await operator.applyIssuerConfiguration({ configuration: declaration() });
    const refused = await createOffer(issuer, {
      credential: { config_id: "employee-badge", claims: { given_name: "A", family_name: "B" } },
    });
    expect({ status: refused.statusCode, message: refused.json().message }).toEqual({
      status: 400,
      message:
        "credential.config_id is not offered by this tenant's issuer (its issuer configuration offers: university-diploma)",
    });
  });

  it("offers: signing mode DID removes the X.509 fallback; explicit DID fields still sign on the DID path", async () => {
    await operator.applyIssuerConfiguration({ configuration: declaration({ signingMode: SigningMode.DID }) });
    const withoutKey = await createOffer(issuer);
    expect({ status: withoutKey.statusCode, message: withoutKey.json().message }).toEqual({
      status: 400,
      message:
        "issuer_did is required: this tenant's issuer is configured for DID signing; issuer_private_key is required: this tenant's issuer is configured for DID signing",
    });
    const key = ed25519Key();
    const withKey = await createOffer(issuer, { issuer_did: didKeyOf(key), issuer_private_key: key.privateJwk.d });
    expect(withKey.statusCode, withKey.body).toBe(201);

    // X509 (and no configuration) keep today's rule: no DID fields -> the X.509 path.
    await operator.applyIssuerConfiguration({ configuration: declaration({ signingMode: SigningMode.X509 }) });
    expect((await createOffer(issuer)).statusCode).toBe(201);
  });

  it("refuses invalid declarations with the field named, unknown tenants, and other callers", async () => {
    const cases: Array<[Partial<ConfigurationInit>, string]> = [
      [{ credentialConfigurations: [] }, "credential_configurations: must name at least one credential configuration"],
      [
        { credentialConfigurations: [{ id: "university-diploma" }, { id: "university-diploma" }] },
        "credential_configurations: ids must be unique",
      ],
      [
        { credentialConfigurations: [{ id: "nope" }] },
        "credential_configurations: not credential configurations of tenant 'acme': nope",
      ],
      [
        { credentialConfigurations: [{ id: "university-diploma", display: [{ name: "x", logoUri: "ftp://a" }] }] },
        "credential_configurations[0].display[0].logo_uri: must be an http(s) or data URI",
      ],
      [
        { credentialConfigurations: [{ id: "university-diploma", display: [{ name: "" }] }] },
        "credential_configurations[0].display[0].name: is required",
      ],
      [
        { defaultOfferTtlSeconds: 59 },
        "default_offer_ttl_seconds: must be 0 (platform default) or from 60 to 86400 seconds",
      ],
      [
        { defaultOfferTtlSeconds: 86_401 },
        "default_offer_ttl_seconds: must be 0 (platform default) or from 60 to 86400 seconds",
      ],
      ...[512, 1000, 3000, 2 ** 21, -1024].map((statusListSize): [Partial<ConfigurationInit>, string] => [
        { statusListSize },
        "status_list_size: must be 0 (platform default) or a power of two from 1024 to 1048576",
      ]),
      [{ signingMode: 7 as never }, "signing_mode: must be DID or X509"],
      [{ signingMode: SigningMode.DID, signingKeyId: "k1" }, "signing_key_id: is only allowed with signing_mode X509"],
      [{ tenant: "Not A Tenant" }, "tenant: must be a tenant identifier"],
    ];
    for (const [overrides, message] of cases) {
      expect(await failureOf(operator.applyIssuerConfiguration({ configuration: declaration(overrides) }))).toEqual({
        code: "InvalidArgument",
        message,
      });
    }
    expect(
      await failureOf(operator.applyIssuerConfiguration({ configuration: declaration({ tenant: "ghost" }) })),
    ).toEqual({ code: "NotFound", message: "Tenant not found" });
    const authServer = issuerServiceAs(issuer, "auth-server");
    expect(await failureOf(authServer.applyIssuerConfiguration({ configuration: declaration() }))).toEqual({
      code: "PermissionDenied",
      message: "attesto.issuance.v1.IssuerService/ApplyIssuerConfiguration may not be called by 'auth-server'",
    });
    expect(await failureOf(authServer.deleteIssuerConfiguration({ tenant: "acme" }))).toMatchObject({
      code: "PermissionDenied",
    });
    await expect(operator.getIssuerConfiguration({ tenant: "acme" })).rejects.toMatchObject({ code: Code.NotFound });
  });
});
