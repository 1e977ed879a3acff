import { generateEd25519Jwk } from "@attesto/protocol";
import {
  createOffer,
  createOrganizationDid,
  didKeyIssuer,
  expectStatus,
  fetchNonce,
  fetchOffer,
  getToken,
  keyProof,
  openSession,
  p256Key,
  postCredential,
  type Tenant,
} from "../../hostile/support/flows.js";
import { http, postJson } from "../../hostile/support/http.js";
import type { PlatformUrls } from "../../hostile/support/platform.js";

/** An id no record has (`/records/{objectId}` answers 404 for it). */
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

/**
 * The public operations the e2e and hostile flows do not drive, each driven once against the running
 * platform so the contract test sees a real exchange: the notification endpoint after a notarized
 * issuance and the ledger record it made, end_session, the holder's authorization-code wallet routes,
 * both DID imports and the verifier's Digital Credentials API response.
 */
export async function driveTheRest(
  url: PlatformUrls,
  tenant: Tenant,
  holder: { asHolder: Record<string, string>; loginToken: string; holderDid: string; holderKey: string },
): Promise<void> {
  // A notarized issuance, then its notification and its ledger record.
  const offer = await createOffer(url, tenant.apiKey, { signing: didKeyIssuer(tenant.tenant) });
  const { code, document } = await fetchOffer(offer);
  const token = await getToken(url, code);
  const proof = await keyProof({ key: p256Key(), nonce: await fetchNonce(url), audience: document.credential_issuer });
  const issued = expectStatus(
    await postCredential(url, token, {
      credential_configuration_id: document.credential_configuration_ids[0],
      proofs: { jwt: [proof] },
      is_on_chain: true,
    }),
    200,
    "notarized POST /credential",
  ).json as { notification_id: string; credentials: Array<{ reference?: { object_id: string } }> };
  const notified = await http(`${url.issuer}/notification`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token.accessToken}` },
    body: JSON.stringify({ notification_id: issued.notification_id, event: "credential_accepted" }),
  });
  expectStatus(notified, 204, "POST /notification");
  const objectId = issued.credentials[0]?.reference?.object_id ?? UNKNOWN;
  await http(`${url.ledger}/records/${encodeURIComponent(objectId)}`);
  await http(`${url.ledger}/records/${UNKNOWN}`);

  // The browser's sign-out.
  expectStatus(await http(`${url.auth}/end_session`), 200, "GET /end_session");

  // The holder as a wallet of the authorization code flow: start, look at the flow, a stray callback.
  const authorizationOffer = await createOffer(url, tenant.apiKey, {
    signing: didKeyIssuer(tenant.tenant),
    body: { flow: "authorization-code" },
  });
  const started = expectStatus(
    await postJson(
      `${url.holder}/v1/oid4vci/authorize`,
      {
        credential_offer_uri: authorizationOffer.deep_link,
        holder_did: holder.holderDid,
        private_key: holder.holderKey,
      },
      holder.asHolder,
    ),
    201,
    "POST /v1/oid4vci/authorize",
  ).json as { flow_id: string };
  expectStatus(
    await http(`${url.holder}/v1/oid4vci/authorize/${started.flow_id}`, { headers: holder.asHolder }),
    200,
    "GET /v1/oid4vci/authorize/:flow_id",
  );
  await http(`${url.holder}/v1/oid4vci/callback?state=not-a-flow&code=x`);

  // DID imports: an organization's did:ledger DID and its key into the holder's custody, and a
  // DID the ledger does not know into the trust registry's.
  const organizationDid = await createOrganizationDid(url, holder.loginToken);
  await postJson(
    `${url.holder}/v1/did/import`,
    { did: organizationDid.did, private_key: organizationDid.private_key },
    holder.asHolder,
  );
  await postJson(
    `${url.trust}/v1/did/import`,
    { did: "did:ledger:0000000000000000000000", private_key: generateEd25519Jwk().d },
    { authorization: `Bearer ${holder.loginToken}` },
  );

  // A Digital Credentials API response for a session that was not opened for it.
  const session = await openSession(url, tenant.apiKey);
  await postJson(`${url.verifier}/v1/verifier/dc-api/${session.session_id}`, {
    protocol: "openid4vp-v1-unsigned",
    data: {},
  });
}
