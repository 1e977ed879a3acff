import { authServer } from "@attesto/auth-server";
import { credentialIssuer } from "@attesto/credential-issuer";
import { holder } from "@attesto/holder";
import { ledger } from "@attesto/ledger";
import type { BaseConfig } from "@attesto/runtime/config";
import type { ServiceModule } from "@attesto/runtime/service";
import { scheduler } from "@attesto/scheduler";
import { schemaRegistry } from "@attesto/schema-registry";
import { trustRegistry } from "@attesto/trust-registry";
import { verifier } from "@attesto/verifier";

/**
 * Every service of the platform, in start order: a service comes after the ones it may call while
 * starting (the trust registry reads credential types, the scheduler reaches the ledger).
 */
export const platformServices: ReadonlyArray<ServiceModule<BaseConfig>> = [
  ledger,
  schemaRegistry,
  trustRegistry,
  authServer,
  credentialIssuer,
  verifier,
  holder,
  scheduler,
];
