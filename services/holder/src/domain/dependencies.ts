import type { StatusListTokenSource } from "@attesto/protocol";
import type { HolderTokens } from "./accounts/holder-token.js";
import type { LoginAttemptRepository } from "./accounts/login-throttle.js";
import type { AuthorizationFlowRepository } from "./oid4vci/authorization-flow.js";
import type { WalletClient } from "./oid4vci/wallet-attestation.js";
import type {
  CredentialRepository,
  DidRepository,
  Ledger,
  Notary,
  OutboundHttp,
  PasswordHasher,
  UserRepository,
  VerifierTrustAnchors,
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
  /** The scheduler: anchors of notarized credentials (GetAnchorProof). */
  notary: Notary;
  http: OutboundHttp;
  /** Roots verifiers' certificates must chain to (x509 client ids). */
  verifierTrustAnchors: VerifierTrustAnchors;
  /** Issuers' Token Status Lists (through `http`, cached by their ttl), for the status of held credentials. */
  statusLists: StatusListTokenSource;
  /** Authorization code flows waiting for the browser's return. */
  authorizationFlows: AuthorizationFlowRepository;
  /** The holder as an OAuth client (client_id, client attestation) of authorization servers. */
  wallet: WalletClient;
  /** The redirect_uri of authorization code flows: `<PUBLIC_URL>/v1/oid4vci/callback`. */
  callbackUrl: string;
  authorizationFlowTtlSeconds: number;
  /** Tolerance on time claims of credentials and request objects. */
  clockSkewSeconds: number;
  now: () => Date;
}
