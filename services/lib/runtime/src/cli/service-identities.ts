import { generateServiceIdentities, SERVICE_IDENTITIES } from "../rpc/service-identity.js";
import { envPrefixOf } from "../service-module.js";

/**
 * Prints a fresh set of service identities as an env file (docs/internal-rpc-permissions.md):
 * `<PREFIX>_SERVICE_IDENTITY_KEY=<private JWK>` for every identity, then
 * `SERVICE_IDENTITY_PUBLIC_KEYS=<JWK Set>`. The output holds private keys: keep it secret.
 *
 *   npx tsx services/lib/runtime/src/cli/service-identities.ts > identities.env
 */
const { privateKeys, publicKeys } = generateServiceIdentities();
for (const name of SERVICE_IDENTITIES) console.log(`${envPrefixOf(name)}_SERVICE_IDENTITY_KEY=${privateKeys[name]}`);
console.log(`SERVICE_IDENTITY_PUBLIC_KEYS=${publicKeys}`);
