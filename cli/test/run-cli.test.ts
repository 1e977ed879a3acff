import type { notaryV1, schemaV1 } from "@attesto/proto";
import type { Client } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { runDeadLetters } from "../src/commands/dead-letters.js";
import { runTypesList } from "../src/commands/types.js";
import { runCli, USAGE } from "../src/run-cli.js";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) }, out, err };
}

const COMMANDS = ["apply", "delete", "get", "webhooks", "apikey", "tenants", "types", "dead-letters", "notarization"];

describe("attesto help", () => {
  it("gives every command its own page with usage and examples, on stdout, exit 0, without touching the platform", async () => {
    for (const command of COMMANDS) {
      for (const argv of [
        [command, "--help"],
        [command, "-h"],
        ["help", command],
        [command, "list", "--help"],
      ]) {
        const { io, out, err } = capture();
        expect(await runCli(argv, {}, io)).toBe(0);
        expect(err).toEqual([]);
        const page = out.join("\n");
        expect(page.startsWith(`usage: attesto ${command}`)).toBe(true);
        expect(page).toMatch(/\nexamples?:\n {2}attesto /);
        expect(page).toContain("exit codes: 0 done, 1 ");
      }
    }
  });

  it("shows the overview for help alone, and refuses an unknown command's help (exit 2)", async () => {
    const overview = capture();
    expect(await runCli(["--help"], {}, overview.io)).toBe(0);
    expect(overview.out).toEqual([USAGE]);
    expect(USAGE).toContain("attesto <command> --help");
    const unknown = capture();
    expect(await runCli(["frobnicate", "--help"], {}, unknown.io)).toBe(2);
    expect(unknown.err[0]).toBe("attesto: unknown command frobnicate");
    const none = capture();
    expect(await runCli([], {}, none.io)).toBe(2);
    expect(none.err).toEqual([USAGE]);
  });
});

describe("attesto types list", () => {
  const schemas = {
    listCredentialTypes: async () => ({
      credentialTypes: [
        {
          type: "org.iso.18013.5.1.mDL",
          version: "v1",
          format: "mso_mdoc",
          status: "active",
          doctype: "org.iso.18013.5.1.mDL",
          vct: "http://r/schemas/org.iso.18013.5.1.mDL/v1",
        },
        {
          type: "university-diploma",
          version: "v1",
          format: "dc+sd-jwt",
          status: "active",
          doctype: "",
          vct: "http://r/schemas/university-diploma/v1",
        },
      ],
    }),
  } as unknown as Client<typeof schemaV1.SchemaService>;

  it("prints one row per type with its format (an mdoc's doctype, an SD-JWT VC's vct), filtered by --format", async () => {
    const all = capture();
    expect(await runTypesList({}, schemas, all.io)).toBe(0);
    expect(all.out).toEqual([
      "org.iso.18013.5.1.mDL\tv1\tmso_mdoc\tactive\torg.iso.18013.5.1.mDL",
      "university-diploma\tv1\tdc+sd-jwt\tactive\thttp://r/schemas/university-diploma/v1",
    ]);
    const mdocs = capture();
    expect(await runTypesList({ format: "mso_mdoc" }, schemas, mdocs.io)).toBe(0);
    expect(mdocs.out).toEqual(["org.iso.18013.5.1.mDL\tv1\tmso_mdoc\tactive\torg.iso.18013.5.1.mDL"]);
    const none = capture();
    expect(await runTypesList({ format: "jwt_vc_json" }, schemas, none.io)).toBe(0);
    expect([none.out, none.err]).toEqual([[], ["no credential types of format jwt_vc_json"]]);
  });

  it("refuses an unknown --format before touching the platform (exit 2)", async () => {
    const { io, err } = capture();
    expect(await runCli(["types", "list", "--format", "jwt"], {}, io)).toBe(2);
    expect(err.join("\n")).toContain("--format must be dc+sd-jwt or mso_mdoc");
  });
});

describe("attesto dead-letters list", () => {
  const emptyNotary = {
    listNotarizations: async () => ({ notarizations: [] }),
    listWebhookDeliveries: async () => ({ deliveries: [] }),
  } as unknown as Client<typeof notaryV1.NotaryService>;

  it("says so on stderr when there are none (stdout stays rows only)", async () => {
    const all = capture();
    expect(await runDeadLetters(["list"], emptyNotary, all.io)).toBe(0);
    expect(all.out).toEqual([]);
    expect(all.err).toEqual(["no dead letters: no dead notarizations or webhook deliveries"]);
    const one = capture();
    expect(await runDeadLetters(["list", "--tenant", "acme"], emptyNotary, one.io)).toBe(0);
    expect(one.err).toEqual(["no dead letters of tenant acme: no dead notarizations or webhook deliveries"]);
  });
});
