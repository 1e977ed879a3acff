export {
  type DcqlMatch,
  type DcqlMismatch,
  type DcqlPresentedCredential,
  formatClaimsPath,
  matchDcqlPresentations,
  selectClaims,
} from "./match-dcql-presentations.js";
export {
  type ClaimsPathElement,
  type ClaimValue,
  type CredentialFormat,
  DCQL_ID_PATTERN,
  type DcqlClaimsQuery,
  type DcqlCredentialQuery,
  type DcqlCredentialSetQuery,
  type DcqlQueryDefinition,
  DcqlQueryError,
  type DcqlTrustedAuthority,
  parseDcqlQuery,
  SUPPORTED_CREDENTIAL_FORMATS,
} from "./parse-dcql-query.js";
