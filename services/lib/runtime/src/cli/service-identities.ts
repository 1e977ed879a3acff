import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { envPrefixOf } from "../config.js";
import { generateServiceIdentities, SERVICE_IDENTITIES } from "../rpc/service-identity.js";

/**
 * A fresh set of service identities (docs/internal-rpc-permissions.md): a private key for every
 * identity (`<PREFIX>_SERVICE_IDENTITY_KEY`, an Ed25519 private JWK) and the public key set naming
 * them all (`SERVICE_IDENTITY_PUBLIC_KEYS`). The output holds private keys: keep it secret.
 *
 *   npx tsx services/lib/runtime/src/cli/service-identities.ts            # env lines on stdout
 *   npx tsx services/lib/runtime/src/cli/service-identities.ts <folder>   # one file per key (mode 0600)
 */
const { privateKeys, publicKeys } = generateServiceIdentities();
const entries: Array<[string, string]> = [
  ...SERVICE_IDENTITIES.map((name): [string, string] => [
    `${envPrefixOf(name)}_SERVICE_IDENTITY_KEY`,
    privateKeys[name],
  ]),
  ["SERVICE_IDENTITY_PUBLIC_KEYS", publicKeys],
];
const folder = process.argv[2];
if (folder) {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  for (const [key, value] of entries) writeFileSync(join(folder, key), value, { mode: 0o600 });
} else {
  for (const [key, value] of entries) console.log(`${key}=${value}`);
}
