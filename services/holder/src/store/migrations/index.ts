import type { Migrations } from "@attesto/store";
import { createHolderTables } from "./0001-holder.js";

/** Migrations of the holder schema, applied in name order at start-up. */
export const migrations: Migrations = {
  "0001_holder": createHolderTables,
};
