import { createHash } from "node:crypto";
import type { CredentialTypeDefinition } from "./credential-type.js";

/**
 * Hex SHA-256 of a definition: the "did the seed change?" fingerprint. The definition's own fields
 * are always built in the same order, so a seed's whitespace and top-level field order do not
 * count; the order of keys inside the schema does, because property order is claim order.
 */
export function computeContentHash(definition: CredentialTypeDefinition): string {
  return createHash("sha256").update(JSON.stringify(definition)).digest("hex");
}
