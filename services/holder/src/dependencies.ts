import { ledgerV1 } from "@attesto/proto";
import { createEnvelopeSealer } from "@attesto/runtime/crypto";
import { createServiceOutboundGuard, type OutboundGuard } from "@attesto/runtime/http";
import { createArgon2PasswordHasher } from "@attesto/runtime/passwords";
import type { ServiceContext } from "@attesto/runtime/service";
import { createLedger } from "./clients/ledger.js";
import { outboundHttpOf } from "./clients/outbound-http.js";
import { createStatusListTokens } from "./clients/status-list-tokens.js";
import type { HolderConfig } from "./config.js";
import { createHolderTokens } from "./domain/accounts/holder-token.js";
import type { HolderDependencies } from "./domain/dependencies.js";
import type { Ledger } from "./domain/ports.js";
import { createCredentialStore } from "./store/credential.store.js";
import { createDidStore } from "./store/did.store.js";
import { createLoginAttemptStore } from "./store/login-attempt.store.js";
import { createUserStore } from "./store/user.store.js";

export interface HolderDependencyOptions {
  /** Replaces LedgerService over Connect (tests). */
  ledger?: Ledger;
  /** Replaces the outbound request guard (tests: a guard that reaches their doubles on loopback). */
  http?: Pick<OutboundGuard, "request" | "checkUrl">;
  /** Clock (tests move it). */
  now?: () => Date;
}

/** The holder's dependencies from its service context: stores, ledger client, outbound HTTP, status lists, tokens. */
export function createDependencies(
  context: ServiceContext<HolderConfig>,
  options: HolderDependencyOptions = {},
): HolderDependencies {
  const { config } = context;
  const now = options.now ?? (() => new Date());
  const sealer = createEnvelopeSealer(config.KEY_ENCRYPTION_KEYS);
  const http = outboundHttpOf(
    options.http ?? createServiceOutboundGuard({ name: context.service, version: context.version, config }),
  );
  return {
    users: createUserStore(context.db),
    dids: createDidStore(context.db),
    credentials: createCredentialStore(context.db, sealer),
    passwords: createArgon2PasswordHasher(),
    loginAttempts: createLoginAttemptStore(context.db),
    tokens: createHolderTokens({
      secret: config.HOLDER_TOKEN_SECRET,
      issuer: context.publicUrl,
      ttlSeconds: config.HOLDER_TOKEN_TTL_SECONDS,
      now,
    }),
    ledger:
      options.ledger ??
      createLedger(
        context.rpcClient(ledgerV1.LedgerService, { baseUrl: config.LEDGER_INTERNAL_URL, audience: "ledger" }),
      ),
    http,
    statusLists: createStatusListTokens(http, {
      maxCacheSeconds: config.STATUS_LIST_MAX_CACHE_SECONDS,
      timeoutMs: config.STATUS_LIST_TIMEOUT_MS,
      now: () => now().getTime(),
    }),
    clockSkewSeconds: config.CLOCK_SKEW_SECONDS,
    now,
  };
}
