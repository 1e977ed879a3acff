import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { InMemoryGrantService } from "../../../services/auth-server/test/support/in-memory-grant-service.js";
import { freePort } from "./servers.js";

/**
 * The credential issuer side of the authorization-code interop test. The double below serves what a
 * wallet reads from the issuer (credential offers with an `authorization_code` grant, issuer
 * metadata) and backs the auth server's GrantService. The real credential issuer plugs in here
 * (integration): it creates offers through `POST /v1/offers` with `flow: authorization-code` and
 * implements `requestCredential` with the issued access token.
 */
export interface IssuanceSide {
  /** Public URL of the issuer; the tenant's credential issuer identifier is `<url>/<tenant>`. */
  url: string;
  tenant: string;
  /** Connects the authorization server once it listens: its URL (issuer metadata) and its GrantService double. */
  connect(authorizationServer: { url: string; grants: InMemoryGrantService }): void;
  /** A fresh authorization-code offer for one configuration: its `openid-credential-offer://` deep link. */
  createAuthorizationCodeOffer(credentialConfigurationId: string): Promise<{ deepLink: string; issuerState: string }>;
  /**
   * The credential request with the access token (nonce endpoint, jwt proof, DPoP). The double
   * cannot issue, so it has none; the interop test then stops after the token.
   */
  requestCredential?: (input: { accessToken: string; credentialConfigurationId: string }) => Promise<string>;
  close(): Promise<void>;
}

/** Issuer metadata shaped like the credential issuer's (spec §4.2), for the configurations of the double. */
function issuerMetadata(issuerUrl: string, tenant: string, authorizationServer: string) {
  const configuration = (id: string, name: string) => ({
    format: "dc+sd-jwt",
    scope: id,
    vct: `http://localhost:8086/schemas/${id.replace(/_v1$/, "")}/v1`,
    credential_signing_alg_values_supported: ["ES256", "EdDSA"],
    cryptographic_binding_methods_supported: ["did", "jwk"],
    proof_types_supported: { jwt: { proof_signing_alg_values_supported: ["ES256", "EdDSA"] } },
    credential_metadata: { display: [{ name, locale: "en-US" }] },
  });
  return {
    credential_issuer: `${issuerUrl}/${tenant}`,
    authorization_servers: [authorizationServer],
    credential_endpoint: `${issuerUrl}/credential`,
    nonce_endpoint: `${issuerUrl}/v1/nonce`,
    display: [{ name: "ACME University", locale: "en-US" }],
    credential_configurations_supported: {
      diploma_v1: configuration("diploma_v1", "University Diploma"),
      transcript_v1: configuration("transcript_v1", "Transcript of Records"),
    },
  };
}

/** The issuer double: offers and metadata over HTTP, grants in the auth server's GrantService double. */
export async function startIssuerDouble(tenant = "acme"): Promise<IssuanceSide> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let authorizationServer = "";
  let grants: InMemoryGrantService | undefined;
  const offers = new Map<string, unknown>();
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", url).pathname;
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (path === `/.well-known/openid-credential-issuer/${tenant}`) {
      return json(200, issuerMetadata(url, tenant, authorizationServer));
    }
    const offer = path.startsWith("/v1/offers/") ? offers.get(path.slice("/v1/offers/".length)) : undefined;
    if (offer) return json(200, offer);
    return json(404, { error: "not_found", message: `Route ${request.method} ${path} not found` });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url,
    tenant,
    connect(value) {
      authorizationServer = value.url;
      grants = value.grants;
    },
    async createAuthorizationCodeOffer(credentialConfigurationId) {
      const offerId = randomUUID();
      const issuerState = randomUUID();
      if (!grants) throw new Error("connect the authorization server first");
      grants.addAuthorizationCodeOffer(issuerState, {
        offerId,
        tenant,
        credentialConfigurationIds: [credentialConfigurationId],
        dpopRequired: true,
      });
      offers.set(offerId, {
        credential_issuer: `${url}/${tenant}`,
        credential_configuration_ids: [credentialConfigurationId],
        grants: { authorization_code: { issuer_state: issuerState, authorization_server: authorizationServer } },
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      });
      const offerUri = `${url}/v1/offers/${offerId}`;
      return {
        deepLink: `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(offerUri)}`,
        issuerState,
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
