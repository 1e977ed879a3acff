import { keysV1 } from "@attesto/proto";
import { createRpcClient } from "@attesto/runtime/rpc";
import { testCredentialSigner } from "@attesto/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x509 } from "../../services/trust-registry/test/custody/custody-test-kit.js";
import {
  base64,
  createTenantChain,
  type TenantChain,
} from "../../services/trust-registry/test/custody/tenant-chain-kit.js";
import { decodeSdJwt, validateX5c, verifySdJwtVc } from "../interop/support/sd-jwt.js";
import { createOffer, DIPLOMA_CLAIMS, type Tenant } from "../interop/support/tenant.js";
import { InteropWallet, receiveCredential } from "../interop/support/wallet.js";
import { readExample } from "./support/examples.js";
import type { StoredObject } from "./support/fake-kube-apiserver.js";
import { GROUP, NS, OperatorOnPlatform } from "./support/operator-on-platform.js";
import { waitFor } from "./support/wait-for.js";

/**
 * Issuer.certificateRef end to end: the example Tenant and an Issuer naming a kubernetes.io/tls
 * Secret, applied through the watch path; the operator drives the real platform (trust registry key
 * custody, credential issuer); a wallet (the OWF client) redeems an offer and the credential's x5c
 * is the tenant's own chain. Ports: offset 23260 (see test/interop/support/platform.ts for the rules).
 */
const PORT_OFFSET = 23_260;
const TENANT = "acme-university";

let loop: OperatorOnPlatform;
let chain: TenantChain;

const pemOf = (der: Uint8Array) => new x509.X509Certificate(der).toString("pem");

beforeAll(async () => {
  loop = await OperatorOnPlatform.start({ portOffset: PORT_OFFSET, label: "certref" });
  chain = await createTenantChain("ACME University", {
    issuer: `${loop.platform.url("credential-issuer")}/${TENANT}`,
  });
}, 120_000);

afterAll(() => loop?.close());

describe("Issuer certificateRef on the real platform", () => {
  it("credentials carry the tenant's own chain in x5c; deleting the Issuer goes back to the platform's", async () => {
    loop.apply(readExample("tenant.yaml"));
    await loop.ready("tenants", TENANT);
    const apiKey = loop.apiKeyOf(TENANT);
    expect(apiKey).not.toBe("");

    loop.apply([
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: `${TENANT}-tls`, namespace: NS },
        type: "kubernetes.io/tls",
        stringData: {
          "tls.crt": pemOf(chain.leaf) + pemOf(chain.intermediate) + pemOf(chain.root),
          "tls.key": chain.leafKeySec1Pem ?? chain.leafKeyPem,
        },
      } as StoredObject,
    ]);
    const [example] = readExample("issuer.yaml");
    loop.apply([{ ...example!, spec: { ...(example!.spec as object), certificateRef: { name: `${TENANT}-tls` } } }]);
    const issuer = await loop.ready("issuers", TENANT);
    const leafCertificate = new x509.X509Certificate(chain.leaf);
    expect(issuer.status).toMatchObject({
      tenantId: TENANT,
      certificateFingerprint: Buffer.from(await leafCertificate.getThumbprint("SHA-256")).toString("hex"),
      certificateNotAfter: leafCertificate.notAfter.toISOString(),
      enforcement: "Enforced",
    });

    // A wallet gets an X.509 credential: signed with the tenant's key, its own chain in x5c.
    const offer = await createOffer(loop.platform, { tenant: TENANT, apiKey } as Tenant);
    const wallet = new InteropWallet();
    const holder = wallet.key("ES256");
    const received = await receiveCredential(wallet, offer.deep_link, {
      dpop: true,
      proofKey: holder,
      proofKeyReference: "jwk",
    });
    const decoded = decodeSdJwt(received.credential);
    expect(decoded.header).toMatchObject({ typ: "dc+sd-jwt", alg: "ES256" });
    expect(decoded.header.x5c).toEqual([base64(chain.leaf), base64(chain.intermediate)]);
    const validated = await validateX5c(decoded.header.x5c as string[], [base64(chain.root)]);
    const verified = await verifySdJwtVc(received.credential, validated.leafKey);
    expect(verified.claims).toMatchObject(DIPLOMA_CLAIMS);
    expect(verified.payload).toMatchObject({ cnf: { jwk: holder.publicJwk } });

    // The Issuer goes: its finalizer clears the import, and custody answers the platform's certificate.
    loop.server.delete(GROUP, "issuers", NS, TENANT);
    await waitFor(() => loop.get("issuers", TENANT) === undefined, "Issuer gone", 30_000);
    const custody = createRpcClient(keysV1.KeyCustodyService, {
      baseUrl: loop.platform.internalUrl("trust-registry"),
      audience: "trust-registry",
      signer: testCredentialSigner("credential-issuer"),
      timeoutMs: 5_000,
    });
    const current = await custody.getSigningCertificate({ tenant: TENANT });
    expect(current.x5c[0]).not.toBe(base64(chain.leaf));
    expect(current.trustAnchor).toBe((await loop.platform.trustAnchors())[0]);
  });
});
