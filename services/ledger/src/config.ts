import { decodeEd25519Seed } from "@attesto/protocol";
import { baseConfigShape, booleanFlag, loadConfig } from "@attesto/runtime/config";
import { keyEncryptionKeysSchema } from "@attesto/runtime/crypto";
import { z } from "zod";

export const ledgerPorts = { public: 8088, internal: 9088 };

export const DEFAULT_CHECKPOINT_INTERVAL_MS = 1000;

const isEd25519Seed = (value: string) => {
  try {
    decodeEd25519Seed(value);
    return true;
  } catch {
    return false;
  }
};

export const ledgerConfigSchema = z.object({
  ...baseConfigShape({ port: ledgerPorts.public, internalPort: ledgerPorts.internal, databaseSchema: "ledger" }),
  /**
   * The ledger's Ed25519 checkpoint-signing key: a base64url 32-byte seed. When unset, a key is
   * generated on first start and kept in the `ledger_keys` table.
   */
  LEDGER_SIGNING_KEY: z
    .string()
    .refine(isEd25519Seed, "must be a base64url Ed25519 private key (32-byte seed)")
    .optional(),
  /**
   * Key-encryption keys (`<id>:<base64url 32 bytes>`, comma-separated, current first) sealing the
   * generated signing key at rest. Unset: the generated key is stored in clear (development only).
   */
  KEY_ENCRYPTION_KEYS: keyEncryptionKeysSchema.optional(),
  /** How often the background checkpointer looks for log growth while the log grows. */
  LEDGER_CHECKPOINT_INTERVAL_MS: z.coerce.number().int().min(10).max(3_600_000).default(DEFAULT_CHECKPOINT_INTERVAL_MS),
  /**
   * How often it looks while the log stands still (at least the interval above): an append through
   * this process wakes it at once; this bounds the wait for one made through a replica that stopped.
   */
  LEDGER_CHECKPOINT_IDLE_INTERVAL_MS: z.coerce.number().int().min(10).max(3_600_000).default(10_000),
  /**
   * Whether GetRecord (and the record and checkpoint reads over HTTP) sign a checkpoint on demand
   * when none covers what was asked for yet, instead of waiting for the next checkpointer tick.
   */
  LEDGER_CHECKPOINT_ON_READ: booleanFlag.default(true),
});

export type LedgerConfig = z.infer<typeof ledgerConfigSchema>;

export const loadLedgerConfig = (env: Record<string, string | undefined>): LedgerConfig =>
  loadConfig(ledgerConfigSchema, env);
