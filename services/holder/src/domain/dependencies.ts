import type { StatusListTokenSource } from "@attesto/protocol";
import type { HolderTokens } from "./accounts/holder-token.js";
import type { LoginAttemptRepository } from "./accounts/login-throttle.js";
import type {
  CredentialRepository,
  DidRepository,
  Ledger,
  OutboundHttp,
  PasswordHasher,
  UserRepository,
} from "./ports.js";

/** Everything the holder's use cases need, passed explicitly (tests pass doubles). */
export interface HolderDependencies {
  users: UserRepository;
  dids: DidRepository;
  credentials: CredentialRepository;
  passwords: PasswordHasher;
  tokens: HolderTokens;
  /** Failed-login throttling per (account, client network). */
  loginAttempts: LoginAttemptRepository;
  ledger: Ledger;
  http: OutboundHttp;
  /** Issuers' Token Status Lists (through `http`, cached by their ttl), for the status of held credentials. */
  statusLists: StatusListTokenSource;
  /** Tolerance on time claims of credentials and request objects. */
  clockSkewSeconds: number;
  now: () => Date;
}
