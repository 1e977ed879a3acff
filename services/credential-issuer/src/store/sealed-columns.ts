import type { SealedColumn } from "@attesto/store";
import { issuerKeyContext } from "../domain/issuer-keys.js";
import { preAuthorizedCodeContext, privateKeyContext } from "../domain/offer.js";

/** Every envelope the credential issuer stores (rewrapped under the current KEK at start-up). */
export const sealedColumns: SealedColumn[] = [
  { table: "offers", key: "id", column: "issuer_key_sealed", context: privateKeyContext },
  { table: "offers", key: "id", column: "pre_authorized_code_sealed", context: preAuthorizedCodeContext },
  { table: "issuer_private_keys", key: "id", column: "sealed_private_key", context: issuerKeyContext },
];
