/**
 * Example manifests as an operator writes them, shared by the CLI's own tests and the end-to-end
 * test of the `attesto` command.
 */

/** A Tenant with one webhook on its own host. */
export const tenantYaml = (
  name: string,
  tenantId: string,
  organizationName = `${name} organization`,
) => `apiVersion: attesto.dev/v1alpha1
kind: Tenant
metadata:
  name: ${name}
spec:
  organizationName: ${organizationName}
  tenantId: ${tenantId}
  webhooks:
    - url: https://hooks.${tenantId}.example/attesto
      events: [credential.notarized]
`;

/** ACME's Issuer of the university diploma (v1); its last line is the configuration's `version`. */
export const ACME_ISSUER = `apiVersion: attesto.dev/v1alpha1
kind: Issuer
metadata:
  name: acme
spec:
  tenantRef: { name: acme }
  credentialConfigurations:
    - type: university-diploma
      version: v1
`;

/** ACME's VerifierPolicy: its own DID trusted, `degree` required. */
export const ACME_POLICY = `apiVersion: attesto.dev/v1alpha1
kind: VerifierPolicy
metadata:
  name: acme
spec:
  tenantRef: { name: acme }
  trustedIssuers: { dids: ["did:ledger:acme-university"] }
  requiredClaims: [degree]
`;
