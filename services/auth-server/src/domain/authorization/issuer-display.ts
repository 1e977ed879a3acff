import type { ClaimLabel } from "./offered-claims.js";

/** What the consent page shows about a tenant's credentials, from its credential issuer metadata. */
export interface IssuerDisplay {
  /** The tenant's display name (metadata `display[].name`). */
  name: string | undefined;
  configurations: Record<string, CredentialDisplay>;
}

export interface CredentialDisplay {
  name: string | undefined;
  description: string | undefined;
  /** The display labels of the type's claims (those the metadata names with object keys only). */
  claims: ClaimLabel[];
}
