import type { SealedColumn } from "@attesto/store";
import { authorizationFlowContext } from "./authorization-flow.store.js";
import { credentialContext } from "./credential.store.js";

/** Every envelope the holder stores (rewrapped under the current KEK at start-up). */
export const sealedColumns: SealedColumn[] = [
  { table: "credentials", key: "id", column: "sealed_content", context: credentialContext },
  { table: "authorization_flows", key: "id", column: "sealed_content", context: authorizationFlowContext },
];
