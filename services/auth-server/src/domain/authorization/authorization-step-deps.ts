import type {
  AuthorizationCodeRepository,
  AuthorizationRequestRepository,
  BrowserSessionRepository,
  GrantRedeemer,
  IssuerDisplaySource,
} from "../ports.js";

/** What the browser step (GET /v1/authorize, POST /v1/authorize/submit) needs. */
export interface AuthorizationStepDeps {
  requests: AuthorizationRequestRepository;
  codes: Pick<AuthorizationCodeRepository, "insert">;
  sessions: BrowserSessionRepository;
  grants: Pick<GrantRedeemer, "redeemIssuerState" | "resolveIssuerState">;
  issuerDisplay: IssuerDisplaySource;
  /** The authorization server's issuer identifier (the `iss` response parameter, RFC 9207). */
  issuer: string;
  /** How long a shown consent page may be answered. */
  consentTtlSeconds: number;
  now: () => Date;
}
