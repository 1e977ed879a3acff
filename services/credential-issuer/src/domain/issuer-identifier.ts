/** The credential issuer identifier of a tenant: `<issuer public URL>/<tenant>`, no trailing slash. */
export const issuerIdentifierOf = (issuerUrl: string, tenant: string): string => `${issuerUrl}/${tenant}`;

/**
 * Where a status list's token is served (public, this service's README "Status lists"): the `uri`
 * of its credentials' `status.status_list` and the token's `sub`.
 */
export const statusListUriOf = (issuerUrl: string, tenant: string, listId: string): string =>
  `${issuerUrl}/status-lists/${tenant}/${listId}`;

/** The credential endpoint URL (the `htu` of DPoP proofs sent to it). */
export const credentialEndpointOf = (issuerUrl: string): string => `${issuerUrl}/credential`;

/** The notification endpoint URL (OID4VCI 1.0 §11; the `htu` of DPoP proofs sent to it). */
export const notificationEndpointOf = (issuerUrl: string): string => `${issuerUrl}/notification`;
