export {
  STATUS_LIST_JWT_MEDIA_TYPE,
  STATUS_LIST_JWT_TYP,
  type StatusListReference,
  type StatusListTokenInput,
  signStatusListToken,
} from "./sign-status-list-token.js";
export {
  compressStatusList,
  decompressStatusList,
  STATUS_LIST_BITS,
  STATUS_TYPE,
  type StatusListBits,
  StatusListError,
  type StatusTypeName,
  setStatusAt,
  statusAt,
  statusListByteLength,
} from "./status-list.js";
