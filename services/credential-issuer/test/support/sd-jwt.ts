import { createHash } from "node:crypto";
import { decodeSdJwt } from "@sd-jwt/decode";

/** SHA-256, the `_sd_alg` of every credential the issuer signs. */
export const sha256Hasher = (data: string | ArrayBuffer) =>
  new Uint8Array(
    createHash("sha256")
      .update(typeof data === "string" ? data : Buffer.from(data))
      .digest(),
  );

/** An issued SD-JWT decoded (issuer JWT and disclosures), without verifying it. */
export const decodeCredential = (credential: string) => decodeSdJwt(credential, sha256Hasher);
