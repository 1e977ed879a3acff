import { randomBytes } from "node:crypto";

/**
 * CSPRNG output handed out in pieces: `take(size)` cuts `size` fresh bytes from a pool of
 * `poolBytes` drawn with one `randomBytes` call, instead of one call (a few µs each) per nonce,
 * salt, key or IV. Every byte is handed out once (a copy; the pool's bytes are zeroed as they go),
 * so the pieces are as random and as independent as separate `randomBytes` calls. A request larger
 * than the pool is drawn on its own.
 */
export function createRandomPool(poolBytes = 4096): (size: number) => Buffer {
  let pool = Buffer.alloc(0);
  let offset = 0;
  return (size) => {
    if (size > poolBytes) return randomBytes(size);
    if (offset + size > pool.length) {
      pool = randomBytes(poolBytes);
      offset = 0;
    }
    const piece = Buffer.from(pool.subarray(offset, offset + size));
    pool.fill(0, offset, offset + size);
    offset += size;
    return piece;
  };
}

/** The process's shared pool (nonces, identifiers, salts, index draws). */
export const pooledRandomBytes = createRandomPool();
