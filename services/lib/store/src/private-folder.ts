import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";

/** Group and other permission bits: none may be set anywhere under a private folder. */
const SHARED_BITS = 0o077;

/**
 * Makes a folder private (the platform's data folder, a database cluster copied from the template): the folder 0700 and every file and folder under it without group
 * or other permissions (0600/0700 as made by this process and by PostgreSQL), whatever the umask
 * was and whatever modes a copied template carried. Symbolic links are not followed (their own mode
 * means nothing on Linux). Returns how many entries had looser modes and were tightened, for a log
 * line. The folder holds the database (API-key hashes, sealed keys), development secrets and API keys.
 */
export function makePrivate(folder: string): number {
  mkdirSync(dirname(folder), { recursive: true }); // folders above it: the umask's modes
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  let tightened = 0;
  const tighten = (path: string) => {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(path);
    } catch {
      return; // removed meanwhile (a running database's temporary file)
    }
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & SHARED_BITS) !== 0) {
      try {
        chmodSync(path, stat.mode & 0o7700 & ~SHARED_BITS);
        tightened++;
      } catch {
        // removed meanwhile
      }
    }
    if (stat.isDirectory()) {
      let entries: string[] = [];
      try {
        entries = readdirSync(path);
      } catch {
        return;
      }
      for (const entry of entries) tighten(join(path, entry));
    }
  };
  tighten(folder);
  return tightened;
}
