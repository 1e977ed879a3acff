/** The credential issuer identifier of a tenant: `<issuer public URL>/<tenant>`, no trailing slash. */
export const issuerIdentifierOf = (issuerUrl: string, tenant: string): string => `${issuerUrl}/${tenant}`;

/** The credential endpoint URL (the `htu` of DPoP proofs sent to it). */
export const credentialEndpointOf = (issuerUrl: string): string => `${issuerUrl}/credential`;
