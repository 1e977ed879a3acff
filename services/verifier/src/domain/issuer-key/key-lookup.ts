import type { VerifiedX5cChain } from "@attesto/protocol";
import type { CheckOutcome, IssuerKeyBinding } from "../checks/check.js";

/** An issuer key bound to the credential's `iss`, or the outcome that says which binding failed. */
export type KeyLookup =
  | {
      jwk: Record<string, unknown>;
      binding: IssuerKeyBinding;
      /** The issuer DID, when the key is a verification method of it. */
      did?: string;
      chain?: VerifiedX5cChain;
    }
  | { outcome: CheckOutcome };

/** `iss` is an absolute http(s) URL (an issuer identified by its web origin and path). */
export function isHttpIdentifier(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "";
}
