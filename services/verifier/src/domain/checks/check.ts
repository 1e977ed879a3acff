import type {
  CredentialFormat,
  DcqlCredentialQuery,
  DcqlQueryDefinition,
  ParsedSdJwtPresentation,
  VerifiedX5cChain,
} from "@attesto/protocol";
import type { ParsedMdocPresentation } from "@attesto/protocol/mdoc";
import type { ActivePolicy } from "../policy/active-policy.js";
import type {
  IssuerDocumentFetcher,
  LedgerDidResolver,
  RegisteredIssuers,
  StatusListTokens,
  TrustAnchorSource,
  VerificationLimits,
} from "../ports.js";
import type { CheckStatus } from "../verification-session.js";

/** The outcome of one check: a status, a stable machine reason and a message safe to show. */
export interface CheckOutcome {
  status: CheckStatus;
  reasonCode: string;
  message: string;
}

export const success = (reasonCode: string, message: string): CheckOutcome => ({
  status: "success",
  reasonCode,
  message,
});
export const failed = (reasonCode: string, message: string): CheckOutcome => ({
  status: "failed",
  reasonCode,
  message,
});
export const skipped = (reasonCode: string, message: string): CheckOutcome => ({
  status: "skipped",
  reasonCode,
  message,
});

/** How the issuer's key was bound to the credential's `iss`. */
export type IssuerKeyBinding = "did" | "jwt_vc_issuer_metadata" | "x5c";

/**
 * Who issued a credential, as issuer_signature verified it: set only once the signature verified
 * with a key bound to `iss`.
 */
export interface IssuerIdentity {
  /** The credential's `iss` (a DID or an http(s) URL). */
  iss: string;
  binding: IssuerKeyBinding;
  /**
   * The issuer DID: `iss` itself when it is a DID; for an http(s) `iss`, the DID its metadata key
   * names in `kid` when that DID's document holds the same key as an assertionMethod.
   */
  did?: string;
  /** The validated x5c chain, on the X.509 path. */
  chain?: VerifiedX5cChain;
  /** That chain as presented (standard base64 DER, leaf first): the SD-JWT `x5c` header or the mdoc's x5chain. */
  x5c?: readonly string[];
  /** Whether the issuer-signed JWT's signature verified (always true once set). */
  signatureVerified: true;
}

/** One presentation of the vp_token, enriched by the checks as they run. */
export interface PresentationUnderVerification {
  queryId: string;
  /** Position within its credential query's array. */
  index: number;
  raw: unknown;
  /** The credential query it answers (undefined when the id is not in the query). */
  query: DcqlCredentialQuery | undefined;
  /** Its format: the credential query's (see formatOf). */
  format: CredentialFormat;
  /** Set by sd_jwt_structure for a dc+sd-jwt presentation. */
  parsed?: ParsedSdJwtPresentation;
  /** Set by sd_jwt_structure for an mso_mdoc presentation (a DeviceResponse). */
  mdoc?: ParsedMdocPresentation;
  /** Set by issuer_signature. */
  issuer?: IssuerIdentity;
}

/** The external edges checks consult. */
export interface CheckPorts {
  ledger: LedgerDidResolver;
  trustAnchors: TrustAnchorSource;
  /** Issuers' Token Status Lists, by URI (check `revocation`). */
  statusLists: StatusListTokens;
  /** JWT VC Issuer Metadata and JWKS of http(s) issuers. */
  issuerDocuments: IssuerDocumentFetcher;
  /** The issuers registered on this platform (default issuer trust). */
  registeredIssuers: RegisteredIssuers;
}

/**
 * What the mdoc SessionTranscript of this response is built from (OID4VP 1.0 B.2.6): the redirect
 * flows' OpenID4VPHandover, or the Digital Credentials API's OpenID4VPDCAPIHandover.
 */
export type MdocHandover =
  | { kind: "oid4vp"; responseUri: string; responseEncryptionJwk?: { kty: string; crv: string; x: string; y?: string } }
  | { kind: "dc_api"; origin: string; responseEncryptionJwk?: { kty: string; crv: string; x: string; y?: string } };

export interface VerificationContext {
  /** The KB-JWT `aud` to demand: the session's client_id, or `origin:<origin>` for an unsigned DC API request. */
  clientId: string;
  nonce: string;
  /** The flow's handover, for the device signature of mdoc presentations. */
  handover: MdocHandover;
  query: DcqlQueryDefinition;
  presentations: PresentationUnderVerification[];
  now: Date;
  limits: VerificationLimits;
  ports: CheckPorts;
  /** The session tenant's verifier policies (none: the policy checks are not run). */
  policies: readonly ActivePolicy[];
}

/** A named verification check; names are part of the result contract (README). */
export interface VerificationCheck {
  name: string;
  run(context: VerificationContext): Promise<CheckOutcome>;
}

/** `credential 'pid'` or `credential 'pid'[1]`: which presentation a message is about. */
export function presentationLabel(presentation: PresentationUnderVerification, context: VerificationContext): string {
  const sameQuery = context.presentations.filter((p) => p.queryId === presentation.queryId).length;
  return sameQuery > 1
    ? `credential '${presentation.queryId}'[${presentation.index}]`
    : `credential '${presentation.queryId}'`;
}

/**
 * A check that looks at each presentation on its own: the first failure fails the check (its
 * message says which credential when there are several); it is skipped when every presentation
 * skipped it, and succeeds otherwise.
 */
export function perPresentationCheck(
  name: string,
  evaluate: (
    presentation: PresentationUnderVerification,
    context: VerificationContext,
  ) => Promise<CheckOutcome> | CheckOutcome,
): VerificationCheck {
  return {
    name,
    async run(context) {
      if (context.presentations.length === 0) return skipped("no_presentation", "the vp_token holds no presentation");
      const outcomes: CheckOutcome[] = [];
      for (const presentation of context.presentations) {
        const outcome = await evaluate(presentation, context);
        if (outcome.status === "failed") {
          if (context.presentations.length === 1) return outcome;
          return { ...outcome, message: `${presentationLabel(presentation, context)}: ${outcome.message}` };
        }
        outcomes.push(outcome);
      }
      return outcomes.find((outcome) => outcome.status === "success") ?? outcomes[0]!;
    },
  };
}

/** The outcome for a presentation that could not be parsed: later checks have nothing to look at. */
export const notEvaluable = () =>
  skipped("not_evaluable", "the presentation is not a valid SD-JWT or DeviceResponse (see sd_jwt_structure)");

/**
 * The format of a presentation: its credential query's; for a vp_token key that names no query
 * (the dcql check fails it), an mdoc when it looks like base64url CBOR (no `~`, no `.`).
 */
export function formatOf(raw: unknown, query: DcqlCredentialQuery | undefined): CredentialFormat {
  if (query) return query.format;
  return typeof raw === "string" && !raw.includes("~") && !raw.includes(".") ? "mso_mdoc" : "dc+sd-jwt";
}
