import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lockDataDir } from "./data-dir-lock.js";

describe("lockDataDir", () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "attesto-lock-"));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("creates the folder, holds a pid file and removes it on release", () => {
    const dir = join(tempDir(), "nested", "data");
    const lock = lockDataDir(dir);
    expect(existsSync(lock.path)).toBe(true);
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
  });

  it("refuses a folder held by a running process", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "attesto.pid"), `${process.ppid}\n`);
    expect(() => lockDataDir(dir)).toThrow(`in use by another Attesto (pid ${process.ppid})`);
  });

  it("takes over a pid file left by a process that is gone", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "attesto.pid"), "2147483646\n");
    lockDataDir(dir).release();
  });
});
