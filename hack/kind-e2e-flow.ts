/**
 * hack/kind-e2e.sh's last step: one issuance (pre-authorized code, DPoP-bound token, X.509-signed
 * SD-JWT VC) and one verification (OpenID4VP direct_post) through the Ingress, as a wallet and a
 * relying party would, with the bench's flows (hack/bench/flows.ts) on the public URLs the chart
 * publishes under ATTESTO_DOMAIN (https://issuer.<domain>, https://auth.<domain>, ...).
 *
 *   ATTESTO_DOMAIN        the chart's ingress.domain (required)
 *   ATTESTO_API_KEY       the tenant's API key (the operator's <tenant>-api-key Secret; required)
 *   ATTESTO_TENANT        tenant id (default acme-university, operator/examples)
 *   ATTESTO_CONNECT_TO    connect every host name to this address instead of resolving it (kind: 127.0.0.1)
 *   ATTESTO_INSECURE_TLS  1: accept any certificate (kind's ingress-nginx default certificate; tests only)
 */
import type { LookupFunction } from "node:net";
import { type BenchTenant, type IssuedCredential, issuanceFlow, type Urls, verificationFlow } from "./bench/flows.js";
import { HttpClient } from "./bench/http.js";

const required = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`kind-e2e-flow: ${name} is required`);
  return value;
};
const domain = required("ATTESTO_DOMAIN");
const tenant: BenchTenant = {
  tenant: process.env.ATTESTO_TENANT ?? "acme-university",
  apiKey: required("ATTESTO_API_KEY"),
  did: "",
  didSeed: "",
};

/** The chart's host names under ingress.domain (charts/attesto/templates/_helpers.tpl). */
const publicUrl = (host: string) => ({ publicUrl: `https://${host}.${domain}`, internalUrl: "" });
const urls: Urls = {
  "auth-server": publicUrl("auth"),
  "credential-issuer": publicUrl("issuer"),
  verifier: publicUrl("verifier"),
  holder: publicUrl("wallet"),
  "trust-registry": publicUrl("registry"),
  "schema-registry": publicUrl("schemas"),
  ledger: { publicUrl: "", internalUrl: "" },
};

const connectTo = process.env.ATTESTO_CONNECT_TO;
const lookup: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: connectTo!, family: 4 }]);
  else callback(null, connectTo!, 4);
};
const http = new HttpClient(2, {
  ...(process.env.ATTESTO_INSECURE_TLS === "1" ? { rejectUnauthorized: false } : {}),
  ...(connectTo ? { lookup } : {}),
});
const step = <T>(name: string, run: () => Promise<T>) => {
  console.log(`kind-e2e-flow: ${name}`);
  return run();
};

try {
  const issued: IssuedCredential[] = [];
  await issuanceFlow(urls, tenant, "x509", (credential) => issued.push(credential)).run(http, step);
  if (issued.length !== 1) throw new Error("kind-e2e-flow: no credential issued");
  await verificationFlow(urls, tenant, issued, { label: "kind", responseMode: "direct_post" }).run(http, step);
  console.log("kind-e2e-flow: issued and verified one credential through the Ingress");
} finally {
  await http.close();
}
