import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lockDataDir } from "../src/data-dir-lock.js";

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

  it("writes this process's pid into the pid file", () => {
    const lock = lockDataDir(tempDir());
    expect(readFileSync(lock.path, "utf8")).toBe(`${process.pid}\n`);
    lock.release();
  });

  it("takes over a pid file left by a process that is gone: the file now names this process", () => {
    const dir = tempDir();
    const path = join(dir, "attesto.pid");
    writeFileSync(path, "2147483646\n");
    const lock = lockDataDir(dir);
    expect(lock.path).toBe(path);
    expect(readFileSync(path, "utf8")).toBe(`${process.pid}\n`);
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it("release leaves a pid file that another process rewrote", () => {
    const dir = tempDir();
    const lock = lockDataDir(dir);
    writeFileSync(lock.path, `${process.ppid}\n`);
    lock.release();
    expect(readFileSync(lock.path, "utf8")).toBe(`${process.ppid}\n`);
  });
});
