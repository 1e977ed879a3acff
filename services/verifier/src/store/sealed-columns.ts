import type { SealedColumn } from "@attesto/store";
import { sessionKeyContext } from "../domain/verification-session.js";

/** Every envelope the verifier stores (rewrapped under the current KEK at start-up). */
export const sealedColumns: SealedColumn[] = [
  { table: "verification_sessions", key: "id", column: "signing_key_envelope", context: sessionKeyContext },
  { table: "verification_sessions", key: "id", column: "encryption_key_envelope", context: sessionKeyContext },
];
