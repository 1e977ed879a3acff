import {
  type ClaimsPathElement,
  type Disclosure,
  KB_JWT_TYP,
  parseSdJwtPresentation,
  sdDigest,
} from "@attesto/protocol";
import { importJWK, SignJWT } from "jose";
import type { HolderKey } from "../dids/resolve-holder-key.js";
import { isJsonObject } from "../http/read-json.js";

type Path = Array<string | number>;

/** Where each disclosure sits in the credential's claims (object names and array indices). */
function disclosurePaths(payload: Record<string, unknown>, disclosures: Disclosure[]): Map<Disclosure, Path> {
  const byDigest = new Map(disclosures.map((disclosure) => [disclosure.digest, disclosure]));
  const paths = new Map<Disclosure, Path>();
  const walk = (value: unknown, path: Path): void => {
    if (Array.isArray(value)) {
      value.forEach((element, index) => {
        const digest = isJsonObject(element) && Object.keys(element).length === 1 ? element["..."] : undefined;
        const disclosure = typeof digest === "string" ? byDigest.get(digest) : undefined;
        if (disclosure) {
          paths.set(disclosure, [...path, index]);
          walk(disclosure.value, [...path, index]);
        } else {
          walk(element, [...path, index]);
        }
      });
      return;
    }
    if (!isJsonObject(value)) return;
    for (const [name, inner] of Object.entries(value)) if (name !== "_sd") walk(inner, [...path, name]);
    for (const digest of Array.isArray(value._sd) ? value._sd : []) {
      const disclosure = typeof digest === "string" ? byDigest.get(digest) : undefined;
      if (!disclosure?.name) continue;
      paths.set(disclosure, [...path, disclosure.name]);
      walk(disclosure.value, [...path, disclosure.name]);
    }
  };
  walk(payload, []);
  return paths;
}

const isPrefix = (prefix: Path, path: Path) =>
  prefix.length <= path.length && prefix.every((segment, index) => String(segment) === String(path[index]));

/**
 * The disclosures a set of claim paths needs: those on the way to each path (parents) and those
 * inside it (the whole value of a disclosed object or array). Undefined paths: every disclosure.
 */
export function selectDisclosures(raw: string, paths: ClaimsPathElement[][] | undefined): Disclosure[] {
  const parsed = parseSdJwtPresentation(raw);
  if (paths === undefined) return parsed.disclosures;
  const located = disclosurePaths(parsed.issuerJwt.payload, parsed.disclosures);
  const wanted = paths.map((path) => path.map((segment) => (segment === null ? "" : segment)) as Path);
  return parsed.disclosures.filter((disclosure) => {
    const at = located.get(disclosure);
    return at !== undefined && wanted.some((path) => isPrefix(at, path) || isPrefix(path, at));
  });
}

/**
 * An SD-JWT presentation (RFC 9901 §4): the issuer-signed JWT, the chosen disclosures (in the
 * credential's order) and a Key Binding JWT (`typ` kb+jwt; `aud` the verifier's full client_id,
 * `nonce`, `iat`, `sd_hash` over `<issuer-jwt>~<d1>~...~<dn>~` with the credential's `_sd_alg`),
 * signed with the holder key.
 */
export async function createSdJwtPresentation(input: {
  raw: string;
  disclosures: Disclosure[];
  holder: HolderKey;
  audience: string;
  nonce: string;
  now: Date;
}): Promise<string> {
  const parsed = parseSdJwtPresentation(input.raw);
  const chosen = new Set(input.disclosures.map((disclosure) => disclosure.encoded));
  const kept = parsed.disclosures.filter((disclosure) => chosen.has(disclosure.encoded));
  const sdJwt = `${[parsed.issuerJwt.compact, ...kept.map((disclosure) => disclosure.encoded)].join("~")}~`;
  const key = await importJWK(input.holder.privateJwk, input.holder.alg);
  const kbJwt = await new SignJWT({
    iat: Math.floor(input.now.getTime() / 1000),
    aud: input.audience,
    nonce: input.nonce,
    sd_hash: sdDigest(sdJwt, parsed.sdAlg),
  })
    .setProtectedHeader({ typ: KB_JWT_TYP, alg: input.holder.alg })
    .sign(key);
  return `${sdJwt}${kbJwt}`;
}
