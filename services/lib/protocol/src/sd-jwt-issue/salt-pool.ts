import { createRandomPool } from "../random/random-pool.js";

/**
 * Disclosure salts of `saltBytes` random bytes each (base64url), cut from a pool of CSPRNG output
 * drawn `saltsPerDraw` salts at a time: one `randomBytes` call per pool instead of one per
 * disclosure. Every byte is handed out once; the pool holds only salts not yet issued.
 */
export function createSaltGenerator(saltBytes: number, saltsPerDraw = 256): () => string {
  const take = createRandomPool(saltBytes * saltsPerDraw);
  return () => take(saltBytes).toString("base64url");
}
