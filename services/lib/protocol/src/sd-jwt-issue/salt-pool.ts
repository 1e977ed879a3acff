import { randomBytes } from "node:crypto";

/**
 * Disclosure salts of `saltBytes` random bytes each (base64url), cut from a pool of CSPRNG output
 * drawn `saltsPerDraw` salts at a time: one `randomBytes` call per pool instead of one per
 * disclosure. Every byte is handed out once; the pool holds only salts not yet issued.
 */
export function createSaltGenerator(saltBytes: number, saltsPerDraw = 256): () => string {
  let pool = Buffer.alloc(0);
  let offset = 0;
  return () => {
    if (offset + saltBytes > pool.length) {
      pool = randomBytes(saltBytes * saltsPerDraw);
      offset = 0;
    }
    const salt = pool.toString("base64url", offset, offset + saltBytes);
    pool.fill(0, offset, offset + saltBytes);
    offset += saltBytes;
    return salt;
  };
}
