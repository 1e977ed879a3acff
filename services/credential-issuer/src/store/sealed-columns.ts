import type { SealedColumn } from "@attesto/store";
import { preAuthorizedCodeContext, privateKeyContext } from "../domain/offer.js";

/** Every envelope the credential issuer stores (rewrapped under the current KEK at start-up). */
export const sealedColumns: SealedColumn[] = [
  { table: "offers", key: "id", column: "issuer_key_sealed", context: privateKeyContext },
  { table: "offers", key: "id", column: "pre_authorized_code_sealed", context: preAuthorizedCodeContext },
];
