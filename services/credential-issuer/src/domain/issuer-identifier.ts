/** The credential issuer identifier of a tenant: `<issuer public URL>/<tenant>`, no trailing slash. */
export const issuerIdentifierOf = (issuerUrl: string, tenant: string): string => `${issuerUrl}/${tenant}`;

/** The credential endpoint URL (the `htu` of DPoP proofs sent to it). */
export const credentialEndpointOf = (issuerUrl: string): string => `${issuerUrl}/credential`;

/** Tenant identifiers as the trust registry allows them (lowercase letters, digits, `-`, `_`). */
export const TENANT_PATTERN = /^[a-z0-9_-]{1,100}$/;
