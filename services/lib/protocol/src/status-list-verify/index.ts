export {
  type CredentialStatusReading,
  type ReadCredentialStatusInput,
  readCredentialStatus,
  type StatusListKeyLookup,
} from "./credential-status.js";
export {
  type CredentialStatusName,
  checkStatusListToken,
  type DecodedStatusListToken,
  decodeStatusListToken,
  MAX_STATUS_LIST_BYTES,
  type StatusListEntryReference,
  StatusListTokenError,
  statusListReferenceOf,
  statusNameOf,
  statusValueAt,
} from "./read-status-list-token.js";
export {
  type CachedStatusListToken,
  createStatusListTokenSource,
  type StatusListCache,
  StatusListFetchError,
  type StatusListHttp,
  type StatusListTokenSource,
} from "./status-list-token-source.js";
