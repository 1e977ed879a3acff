import { createHash } from "node:crypto";
import {
  type DecodedJwt,
  decodeBase64urlJson,
  decodeCompactJwt,
  isJsonObject,
  type JsonObject,
} from "./decode-compact-jwt.js";
import { isAllowedJwsAlgorithm } from "./jws-algorithms.js";
import { SdJwtVerificationError } from "./sd-jwt-verification-error.js";

/** `_sd_alg` values (IANA hash names) this verifier computes digests with; sha-256 is the default. */
export const SUPPORTED_SD_ALGORITHMS = { "sha-256": "sha256", "sha-384": "sha384", "sha-512": "sha512" } as const;
export type SdAlgorithm = keyof typeof SUPPORTED_SD_ALGORITHMS;

/** One disclosure: `[salt, name, value]` for an object property, `[salt, value]` for an array element. */
export interface Disclosure {
  encoded: string;
  digest: string;
  salt: string;
  /** Absent for array-element disclosures. */
  name?: string;
  value: unknown;
}

export interface ParsedSdJwtPresentation {
  /** The issuer-signed JWT (compact JWS). */
  issuerJwt: DecodedJwt;
  disclosures: Disclosure[];
  /** The Key Binding JWT, when the presentation ends with one. */
  keyBindingJwt?: DecodedJwt;
  sdAlg: SdAlgorithm;
  /** `<issuer-jwt>~<d1>~...~<dn>~`: what the KB-JWT's `sd_hash` is computed over (RFC 9901 §4.3.1). */
  sdHashInput: string;
  /** The processed payload: disclosed claims in place, `_sd`, `...` and `_sd_alg` removed (RFC 9901 §7.1). */
  claims: JsonObject;
}

/** base64url of the hash of `input` (ASCII) with an SD-JWT hash algorithm. */
export function sdDigest(input: string, alg: SdAlgorithm): string {
  return createHash(SUPPORTED_SD_ALGORITHMS[alg]).update(input, "ascii").digest("base64url");
}

const fail = (code: string, message: string): never => {
  throw new SdJwtVerificationError(code, message);
};

function parseDisclosure(encoded: string, index: number, alg: SdAlgorithm): Disclosure {
  const decoded = decodeBase64urlJson(encoded);
  const where = `disclosure ${index + 1}`;
  if (!Array.isArray(decoded)) return fail("malformed_disclosure", `${where} is not a base64url JSON array`);
  if (decoded.length !== 2 && decoded.length !== 3) {
    return fail("malformed_disclosure", `${where} must have 2 or 3 elements`);
  }
  const [salt] = decoded;
  if (typeof salt !== "string") return fail("malformed_disclosure", `${where} has no string salt`);
  const digest = sdDigest(encoded, alg);
  if (decoded.length === 2) return { encoded, digest, salt, value: decoded[1] };
  const name = decoded[1];
  if (typeof name !== "string") return fail("malformed_disclosure", `${where} has no string claim name`);
  if (name === "_sd" || name === "...")
    return fail("malformed_disclosure", `${where} uses the reserved name '${name}'`);
  return { encoded, digest, salt, name, value: decoded[2] };
}

/**
 * RFC 9901 §7.1 steps 3–5: replaces digests by the disclosed claims, recursively. Every digest may
 * appear once in the whole payload (disclosed values included); every disclosure must be referenced.
 */
class DisclosureProcessor {
  private readonly byDigest = new Map<string, Disclosure>();
  private readonly seenDigests = new Set<string>();
  private readonly used = new Set<string>();

  constructor(disclosures: Disclosure[]) {
    for (const disclosure of disclosures) {
      if (this.byDigest.has(disclosure.digest)) {
        fail("duplicate_disclosure", "the same disclosure is presented more than once");
      }
      this.byDigest.set(disclosure.digest, disclosure);
    }
  }

  private claimDigest(digest: unknown): Disclosure | undefined {
    if (typeof digest !== "string") return fail("malformed_sd", "a digest is not a string");
    if (this.seenDigests.has(digest)) return fail("duplicate_digest", "a digest appears more than once in the SD-JWT");
    this.seenDigests.add(digest);
    const disclosure = this.byDigest.get(digest);
    if (disclosure) this.used.add(digest);
    return disclosure;
  }

  process(value: unknown): unknown {
    if (Array.isArray(value)) return this.processArray(value);
    if (isJsonObject(value)) return this.processObject(value);
    return value;
  }

  private processObject(object: JsonObject): JsonObject {
    const result: JsonObject = {};
    for (const [key, inner] of Object.entries(object)) {
      if (key === "_sd") continue;
      result[key] = this.process(inner);
    }
    const digests = object._sd;
    if (digests === undefined) return result;
    if (!Array.isArray(digests)) return fail("malformed_sd", "_sd is not an array");
    for (const digest of digests) {
      const disclosure = this.claimDigest(digest);
      if (!disclosure) continue; // a decoy or an undisclosed claim
      if (disclosure.name === undefined) {
        return fail("malformed_disclosure", "an array-element disclosure is referenced from an object");
      }
      if (Object.hasOwn(result, disclosure.name)) {
        return fail("claim_name_conflict", `disclosed claim '${disclosure.name}' already exists in the payload`);
      }
      result[disclosure.name] = this.process(disclosure.value);
    }
    return result;
  }

  private processArray(array: unknown[]): unknown[] {
    const result: unknown[] = [];
    for (const element of array) {
      if (isJsonObject(element) && Object.hasOwn(element, "...")) {
        if (Object.keys(element).length !== 1) return fail("malformed_sd", "an array digest object has extra members");
        const disclosure = this.claimDigest(element["..."]);
        if (!disclosure) continue; // undisclosed element or decoy: removed
        if (disclosure.name !== undefined) {
          return fail("malformed_disclosure", "an object-property disclosure is referenced from an array");
        }
        result.push(this.process(disclosure.value));
      } else {
        result.push(this.process(element));
      }
    }
    return result;
  }

  assertAllReferenced(): void {
    const unreferenced = [...this.byDigest.keys()].filter((digest) => !this.used.has(digest)).length;
    if (unreferenced > 0) {
      fail("unreferenced_disclosure", `${unreferenced} disclosure(s) are not referenced by any digest`);
    }
  }
}

/**
 * Parses an SD-JWT presentation (`<issuer-jwt>~<d1>~...~<dn>~[<kb-jwt>]`) and applies the RFC 9901
 * structural rules: compact issuer JWS, `alg` in the allow-list (never `none`), a supported
 * `_sd_alg`, well-formed disclosures, no duplicate digests or disclosures, no unreferenced
 * disclosure, no claim-name conflicts. Signatures are NOT checked here.
 */
export function parseSdJwtPresentation(presentation: string): ParsedSdJwtPresentation {
  if (typeof presentation !== "string" || presentation.length === 0) {
    return fail("malformed_sd_jwt", "the presentation is not a string");
  }
  const parts = presentation.split("~");
  if (parts.length < 2) return fail("malformed_sd_jwt", "the presentation is not an SD-JWT (no '~' separator)");
  const issuerJwt = decodeCompactJwt(parts[0] ?? "", "malformed_sd_jwt", "the issuer-signed JWT");
  const alg = issuerJwt.header.alg;
  if (alg === "none" || !isAllowedJwsAlgorithm(alg)) {
    return fail("alg_not_allowed", `issuer JWT alg '${String(alg)}' is not allowed (ES256, EdDSA)`);
  }
  const sdAlgClaim = issuerJwt.payload._sd_alg ?? "sha-256";
  if (typeof sdAlgClaim !== "string" || !Object.hasOwn(SUPPORTED_SD_ALGORITHMS, sdAlgClaim)) {
    return fail("unsupported_sd_alg", `_sd_alg '${String(sdAlgClaim)}' is not supported`);
  }
  const sdAlg = sdAlgClaim as SdAlgorithm;
  const last = parts[parts.length - 1] ?? "";
  const encodedDisclosures = parts.slice(1, -1);
  if (encodedDisclosures.some((d) => d.length === 0))
    return fail("malformed_sd_jwt", "the presentation has an empty disclosure");
  const keyBindingJwt = last === "" ? undefined : decodeCompactJwt(last, "malformed_kb_jwt", "the Key Binding JWT");
  const disclosures = encodedDisclosures.map((encoded, index) => parseDisclosure(encoded, index, sdAlg));
  const processor = new DisclosureProcessor(disclosures);
  const processed = processor.process(issuerJwt.payload) as JsonObject;
  processor.assertAllReferenced();
  delete processed._sd_alg;
  const sdHashInput = `${[parts[0], ...encodedDisclosures].join("~")}~`;
  return { issuerJwt, disclosures, keyBindingJwt, sdAlg, sdHashInput, claims: processed };
}
