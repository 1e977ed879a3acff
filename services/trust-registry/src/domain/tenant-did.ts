/** A DID held by a tenant, its signing key in custody. */
export interface TenantDid {
  /** did:ledger:<id> */
  did: string;
  tenant: string;
  /** DID URL of the verification method the custody key answers for (`did:ledger:<id>#key-1`). */
  keyId: string;
  /** Id of the private key in key custody. */
  custodyKeyId: string;
  /** `created` by POST /v1/did or `imported` by POST /v1/did/import. */
  source: "created" | "imported";
  status: "active";
  createdAt: Date;
}

export const DID_METHOD = "LEDGER" as const;
export const LEDGER_DID_PREFIX = "did:ledger:" as const;
