import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makePrivate } from "../src/private-folder.js";

const modeOf = (path: string) => lstatSync(path).mode & 0o7777;

describe("makePrivate", () => {
  const root = mkdtempSync(join(tmpdir(), "attesto-private-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("makes a new data folder 0700 and leaves the folders above it alone", () => {
    const dataDir = join(root, "made", "nested", ".attesto");
    expect(makePrivate(dataDir)).toBe(0);
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(root, "made")) & 0o005).not.toBe(0); // the umask's mode, not 0700
  });

  it("removes group and other access everywhere below, keeps the owner's bits, counts what it changed", () => {
    const dataDir = join(root, "loose");
    mkdirSync(join(dataDir, "pgdata", "base"), { recursive: true });
    writeFileSync(join(dataDir, "secrets.json"), "{}");
    writeFileSync(join(dataDir, "pgdata", "base", "1234"), "");
    writeFileSync(join(dataDir, "pgdata", "private"), "");
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, "pgdata"), 0o777);
    chmodSync(join(dataDir, "pgdata", "base"), 0o750);
    chmodSync(join(dataDir, "secrets.json"), 0o644);
    chmodSync(join(dataDir, "pgdata", "base", "1234"), 0o666);
    chmodSync(join(dataDir, "pgdata", "private"), 0o600);
    symlinkSync("/etc/hostname", join(dataDir, "link"));

    expect(makePrivate(dataDir)).toBe(5);
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, "pgdata"))).toBe(0o700);
    expect(modeOf(join(dataDir, "pgdata", "base"))).toBe(0o700);
    expect(modeOf(join(dataDir, "secrets.json"))).toBe(0o600);
    expect(modeOf(join(dataDir, "pgdata", "base", "1234"))).toBe(0o600);
    expect(modeOf(join(dataDir, "pgdata", "private"))).toBe(0o600);
    expect(makePrivate(dataDir)).toBe(0); // nothing left to tighten
  });
});
