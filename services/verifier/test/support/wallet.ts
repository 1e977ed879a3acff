import {
  holderKey,
  type IssueOptions,
  issueCredential,
  type KeyBinding,
  presentCredential,
  type TestIssuer,
} from "./credentials.js";
import type { OpenedSession } from "./test-verifier.js";

export interface PresentOptions {
  issuer: TestIssuer;
  /** Credential overrides (claims, vct, iat, exp, typ, no holder binding). */
  credential?: Partial<Omit<IssueOptions, "issuer">>;
  /** What the holder discloses; given_name and family_name by default. */
  disclose?: Record<string, unknown>;
  /** KB-JWT overrides; `false` sends no KB-JWT. */
  kb?: Partial<KeyBinding> | false;
  /** Another holder key signs the KB-JWT (wrong holder). */
  kbSignedByOtherKey?: boolean;
}

/** What a wallet would present to a session: the SD-JWT VC with the chosen disclosures and a KB-JWT. */
export async function presentationFor(session: OpenedSession, options: PresentOptions): Promise<string> {
  const holder = holderKey();
  const withHolder = options.credential && "holder" in options.credential ? options.credential.holder : holder;
  const credential = await issueCredential({ issuer: options.issuer, holder: withHolder, ...options.credential });
  const kb =
    options.kb === false ? undefined : { aud: session.request.client_id, nonce: session.request.nonce, ...options.kb };
  const signer = options.kbSignedByOtherKey ? holderKey() : (withHolder ?? holder);
  return presentCredential(credential, options.disclose ?? { given_name: true, family_name: true }, signer, kb);
}

/** A DCQL vp_token for one presentation of the `pid` query, as JSON text (what wallets post). */
export const vpTokenOf = (presentation: string, queryId = "pid") => JSON.stringify({ [queryId]: [presentation] });
