import { publicJwkFromDidKey } from "../did/did-key.js";
import { KeyFormatError } from "../keys/key-format-error.js";
import { type PublicJwk, publicJwkOf } from "./public-jwk.js";

/**
 * Resolves a DID to its DID document (parsed JSON), or undefined when the DID does not exist.
 * Infrastructure failures (the ledger is unreachable) are thrown and must not be mistaken for a
 * bad key.
 */
export type DidDocumentResolver = (did: string) => Promise<unknown>;

/** A verification method of a DID document with a usable public key. */
export interface DidVerificationMethod {
  /** Absolute DID URL, e.g. did:ledger:abc#key-1. */
  id: string;
  publicJwk: PublicJwk;
}

/** Thrown when a DID or DID URL cannot give a key; the message is safe to show. */
export class DidKeyResolutionError extends Error {
  override name = "DidKeyResolutionError";
}

const DID_SYNTAX = /^did:[a-z0-9]+:(?:[A-Za-z0-9._%-]*:)*[A-Za-z0-9._%-]+$/;

/** Whether `value` is a DID (DID Core syntax; no path, query or fragment). */
export const isDid = (value: string): boolean => DID_SYNTAX.test(value);

/** The DID of a DID URL (everything before the first `#`, `?` or `/` after the method id). */
export const didOfDidUrl = (didUrl: string): string => didUrl.split(/[#?/]/)[0] ?? "";

const absolute = (did: string, id: string) => (id.startsWith("#") ? `${did}${id}` : id);

/**
 * The verification methods of a DID document that carry an Ed25519 or P-256 `publicKeyJwk`.
 * With `purpose`, only those the document lists under that relationship (by reference or embedded).
 */
export function verificationMethodsOf(
  document: unknown,
  did: string,
  purpose?: "assertionMethod" | "authentication",
): DidVerificationMethod[] {
  if (typeof document !== "object" || document === null) return [];
  const doc = document as Record<string, unknown>;
  const listed = Array.isArray(doc.verificationMethod) ? (doc.verificationMethod as unknown[]) : [];
  const toMethod = (entry: unknown): DidVerificationMethod | undefined => {
    const method = entry as { id?: unknown; publicKeyJwk?: unknown } | null;
    const publicJwk = publicJwkOf(method?.publicKeyJwk);
    return typeof method?.id === "string" && publicJwk ? { id: absolute(did, method.id), publicJwk } : undefined;
  };
  const all = listed.map(toMethod);
  if (!purpose) return all.filter((m) => m !== undefined);
  const related = Array.isArray(doc[purpose]) ? (doc[purpose] as unknown[]) : [];
  const references = new Set(
    related.filter((entry): entry is string => typeof entry === "string").map((id) => absolute(did, id)),
  );
  const embedded = related.filter((entry) => typeof entry === "object").map(toMethod);
  return [...all.filter((m) => m !== undefined && references.has(m.id)), ...embedded].filter((m) => m !== undefined);
}

/**
 * The key a DID URL names: a `did:key` decodes locally (its fragment, when present, must be the key
 * itself); any other DID resolves through `resolveDidDocument` and must list the fragment as a
 * verification method. A DID without a fragment is accepted when its document has exactly one key.
 */
export async function resolveDidUrlKey(
  didUrl: string,
  resolveDidDocument: DidDocumentResolver | undefined,
): Promise<DidVerificationMethod & { did: string }> {
  const did = didOfDidUrl(didUrl);
  if (!isDid(did)) throw new DidKeyResolutionError("kid is not a DID URL");
  if (did.startsWith("did:key:")) {
    let publicJwk: PublicJwk;
    try {
      publicJwk = publicJwkFromDidKey(did);
    } catch (error) {
      if (error instanceof KeyFormatError)
        throw new DidKeyResolutionError(`kid is not a valid did:key: ${error.message}`);
      throw error;
    }
    const fragment = didUrl.slice(did.length);
    const multibase = did.slice("did:key:".length);
    if (fragment !== "" && fragment !== `#${multibase}`)
      throw new DidKeyResolutionError("kid fragment does not name the did:key's key");
    return { did, id: `${did}#${multibase}`, publicJwk };
  }
  if (!resolveDidDocument) throw new DidKeyResolutionError(`DID method of kid is not supported`);
  const document = await resolveDidDocument(did);
  if (document === undefined) throw new DidKeyResolutionError("kid DID cannot be resolved");
  const methods = verificationMethodsOf(document, did);
  const method =
    didUrl === did ? (methods.length === 1 ? methods[0] : undefined) : methods.find((m) => m.id === didUrl);
  if (!method) throw new DidKeyResolutionError("kid does not name a key of its DID document");
  return { did, ...method };
}
