import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeCredentialFile } from "../src/commands/reveal.js";

describe("writeCredentialFile", () => {
  it("creates the folder and the file, mode 0600, leaving nothing else behind", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "attesto-credential-file-")), "keys");
    const path = join(dir, "acme.key");
    writeCredentialFile(path, "attesto_test_value");
    expect(readFileSync(path, "utf8")).toBe("attesto_test_value\n");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual(["acme.key"]);
  });

  it("replaces an existing file whole, and makes it owner-only again", () => {
    const dir = mkdtempSync(join(tmpdir(), "attesto-credential-file-"));
    const path = join(dir, "acme.key");
    writeFileSync(path, "an older and much longer value than the new one\n");
    chmodSync(path, 0o644);
    writeCredentialFile(path, "new");
    expect(readFileSync(path, "utf8")).toBe("new\n");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["acme.key"]);
  });
});
