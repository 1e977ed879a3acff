import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SERVICE_IDENTITIES } from "@attesto/runtime/rpc";
import { describe, expect, it } from "vitest";

/**
 * The composition contract of docs/architecture.md ("Composition contract"), checked on the source
 * files as text: every claim there that names a file or an import is held here.
 */
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The eight services: every internal identity but the operator's. */
const SERVICES = SERVICE_IDENTITIES.filter((name) => name !== "operator");

/** Packages whose tests belong under `test/`: the services, the launcher, the shared libraries, the operator and the CLI. */
const PACKAGES = [
  ...SERVICES.map((name) => `services/${name}`),
  "services/all-in-one",
  ...readdirSync(join(repoRoot, "services/lib")).map((name) => `services/lib/${name}`),
  "operator",
  "cli",
];

function filesUnder(folder: string): string[] {
  const absolute = join(repoRoot, folder);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute, { recursive: true, encoding: "utf8" })
    .filter((path) => !path.split("/").includes("node_modules") && path.endsWith(".ts"))
    .map((path) => `${folder}/${path}`)
    .filter((path) => statSync(join(repoRoot, path)).isFile());
}

/** Every module specifier a file imports or re-exports (static and dynamic). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(repoRoot, file), "utf8");
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"/gms),
    ...text.matchAll(/^\s*import\s+"([^"]+)"/gm),
    ...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g),
  ];
  return specifiers.map((match) => match[1]!);
}

/** The service a module specifier of `file` reaches, when it is another service's package or one of its files. */
function serviceReached(file: string, specifier: string): { service: string; deep: boolean } | undefined {
  if (specifier.startsWith(".")) {
    const target = relative(repoRoot, resolve(dirname(join(repoRoot, file)), specifier));
    const match = /^services\/([^/]+)\//.exec(target);
    if (match && (SERVICES as readonly string[]).includes(match[1]!)) return { service: match[1]!, deep: true };
    return undefined;
  }
  const match = /^@attesto\/([^/]+)(\/.*)?$/.exec(specifier);
  if (match && (SERVICES as readonly string[]).includes(match[1]!))
    return { service: match[1]!, deep: match[2] !== undefined };
  return undefined;
}

/** The return type of a service's `createDependencies`: the aggregate of its ports. */
const CREATE_DEPENDENCIES =
  /export function createDependencies\(\s*context: ServiceContext<\w+>,\s*overrides(\?)?: [^)]*?\)\s*:\s*(\w+)/;

function aggregateOf(service: string): string | undefined {
  const text = readFileSync(join(repoRoot, `services/${service}/src/dependencies.ts`), "utf8");
  return CREATE_DEPENDENCIES.exec(text)?.[2];
}

/** Names a port has: what a domain declares as something it calls out to. */
const PORT_NAME =
  /\bexport\s+(?:interface|type)\s+(\w+(?:Repository|Repositories|Store|Stores|Client|Port|Gateway|Resolver|Fetcher|Signer|Sender))\b/g;

/** The lines of a source file with comments blanked, so prose naming a rule does not trip it. */
function codeOf(file: string): string {
  return readFileSync(join(repoRoot, file), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, " "))
    .replace(/(^|[^:"'`])\/\/[^\n]*/g, "$1");
}

describe("every service has one composition root", () => {
  it.each(SERVICES)(
    "%s: src/config.ts, src/dependencies.ts with createDependencies(context, overrides = {}), app.ts, service.ts, main.ts",
    (service) => {
      const src = `services/${service}/src`;
      for (const file of ["config.ts", "dependencies.ts", "app.ts", "service.ts", "main.ts"]) {
        expect(existsSync(join(repoRoot, src, file)), `${src}/${file}`).toBe(true);
      }
      const dependencies = readFileSync(join(repoRoot, src, "dependencies.ts"), "utf8");
      expect(dependencies).toMatch(CREATE_DEPENDENCIES);
      // One way to build: `overrides` is optional (`= {}` or `?`) and nothing follows it.
      expect(dependencies).toMatch(
        /createDependencies\(\s*context: ServiceContext<\w+>,\s*overrides(\?: [^)=]*?|: [^)=]*?= \{\}),?\s*\)/,
      );
    },
  );

  it.each(SERVICES)("%s: ports are declared in src/domain/ports.ts, the aggregate among them", (service) => {
    const domain = `services/${service}/src/domain`;
    expect(existsSync(join(repoRoot, domain, "ports.ts")), `${domain}/ports.ts`).toBe(true);
    for (const stray of ["dependencies.ts", "repositories.ts"])
      expect(existsSync(join(repoRoot, domain, stray))).toBe(false);
    const elsewhere = filesUnder(domain)
      .filter((file) => file !== `${domain}/ports.ts`)
      .flatMap((file) => [...codeOf(file).matchAll(PORT_NAME)].map((match) => `${file}: ${match[1]}`));
    expect(elsewhere).toEqual([]);
    const aggregate = aggregateOf(service);
    expect(aggregate, "createDependencies' return type").toBeDefined();
    expect(codeOf(`${domain}/ports.ts`)).toMatch(new RegExp(`export (interface|type) ${aggregate}\\b`));
  });

  it.each(SERVICES)("%s: use cases take just what they use (Pick<> of the aggregate, never all of it)", (service) => {
    const domain = `services/${service}/src/domain`;
    const aggregate = aggregateOf(service);
    expect(aggregate).toBeDefined();
    const whole = filesUnder(domain)
      .filter((file) => file !== `${domain}/ports.ts`)
      .flatMap((file) => {
        // Imports and re-exports name the type without using it; a Pick<> may span lines.
        const code = codeOf(file).replace(/^\s*(?:import|export)\s[^;]*?\sfrom\s+"[^"]+";?/gms, "");
        return [...code.matchAll(new RegExp(`\\b${aggregate}\\b`, "g"))]
          .filter((match) => !/Pick<\s*$/.test(code.slice(0, match.index)))
          .map((match) => `${file}:${code.slice(0, match.index).split("\n").length}`);
      });
    expect(whole).toEqual([]);
  });

  it.each(SERVICES)(
    "%s: the clock and the logger come from the ServiceContext (no new Date(), Date.now(), createLogger)",
    (service) => {
      const own = filesUnder(`services/${service}/src`).flatMap((file) =>
        codeOf(file)
          .split("\n")
          .filter((line) => /\bnew Date\(\s*\)|\bDate\.now\(\s*\)|\bcreateLogger\(/.test(line))
          .map((line) => `${file}: ${line.trim()}`),
      );
      expect(own).toEqual([]);
    },
  );

  it("the checks see a violation (they can fail)", () => {
    expect("export interface OfferRepository {").toMatch(new RegExp(PORT_NAME.source));
    expect(
      CREATE_DEPENDENCIES.exec(
        "export function createDependencies(context: ServiceContext<C>, overrides: Partial<D> = {}): D {",
      )?.[2],
    ).toBe("D");
    expect(
      CREATE_DEPENDENCIES.exec("export function createDependencies(context: ServiceContext<C>, clock?: Clock): D {"),
    ).toBeNull();
  });
});

describe("the operator and the CLI", () => {
  /** What they may take of the runtime: configuration, logging and internal RPC, and the rules without I/O. */
  const RUNTIME_SUBPATHS = ["config", "logging", "rpc", "tenant-id", "status-list-size", "backoff"];

  it.each(["operator", "cli"])("%s/src reaches the platform only over internal RPC (no service package)", (pkg) => {
    const crossings = filesUnder(`${pkg}/src`).flatMap((file) =>
      importsOf(file)
        .filter((specifier) => serviceReached(file, specifier) !== undefined)
        .map((specifier) => `${file}: ${specifier}`),
    );
    expect(crossings).toEqual([]);
  });

  it.each(["operator", "cli"])(
    "%s/src takes of the runtime only /config, /logging, /rpc and the rules without I/O",
    (pkg) => {
      const other = filesUnder(`${pkg}/src`).flatMap((file) =>
        importsOf(file)
          .filter((specifier) => specifier.startsWith("@attesto/runtime"))
          .filter((specifier) => !RUNTIME_SUBPATHS.includes(specifier.slice("@attesto/runtime/".length)))
          .map((specifier) => `${file}: ${specifier}`),
      );
      expect(other).toEqual([]);
    },
  );
});

describe("one set of dependencies per running service", () => {
  it.each(SERVICES)(
    "%s: service.ts builds them once (perService over createDependencies), shared by the public app, the internal RPC and start-up work",
    (service) => {
      const module = codeOf(`services/${service}/src/service.ts`);
      expect(module.match(/\bperService\(/g)).toHaveLength(1);
      expect(module).toMatch(/perService\(\s*(createDependencies\b|\([^)]*\)\s*=>\s*createDependencies\()/);
      expect((module.match(/\bcreateDependencies\(/g) ?? []).length).toBeLessThanOrEqual(1);
    },
  );
});

describe("where things live", () => {
  it("tests live under a package's test/ folder, never in src/", () => {
    const misplaced = PACKAGES.flatMap((pkg) => filesUnder(`${pkg}/src`)).filter((file) => file.endsWith(".test.ts"));
    expect(misplaced).toEqual([]);
  });

  it.each(SERVICES)("%s: Prometheus metrics are declared only in src/<service>-metrics.ts", (service) => {
    const declaring = filesUnder(`services/${service}/src`).filter((file) => importsOf(file).includes("prom-client"));
    for (const file of declaring) expect(file).toBe(`services/${service}/src/${service}-metrics.ts`);
  });

  it.each(SERVICES)("%s: internal RPC handlers are registered in src/rpc/", (service) => {
    const registering = filesUnder(`services/${service}/src`).filter((file) =>
      /\b(ConnectRouter|ServiceImpl)\b/.test(readFileSync(join(repoRoot, file), "utf8")),
    );
    for (const file of registering) expect(file.startsWith(`services/${service}/src/rpc/`), file).toBe(true);
  });

  it("only the holder, the verifier and the scheduler make outbound requests to URLs others supply", () => {
    const users = new Set(
      SERVICES.filter((service) =>
        filesUnder(`services/${service}/src`).some((file) =>
          /\bcreate(Service)?OutboundGuard\b|\bcreateOutboundRequestGuard\b/.test(
            readFileSync(join(repoRoot, file), "utf8"),
          ),
        ),
      ),
    );
    expect([...users].sort()).toEqual(["holder", "scheduler", "verifier"]);
  });
});

describe("one cache helper", () => {
  it("only services/lib/protocol/src/cache/bounded-cache.ts imports lru-cache; every cache is made through it", () => {
    const importers = PACKAGES.flatMap((pkg) => filesUnder(`${pkg}/src`)).filter((file) =>
      importsOf(file).includes("lru-cache"),
    );
    expect(importers).toEqual(["services/lib/protocol/src/cache/bounded-cache.ts"]);
  });
});

describe("the tenant identifier rules live in one module", () => {
  it("no source outside services/lib/runtime/src/tenant-id.ts spells out a tenant's length or pattern", () => {
    const spelled = [...PACKAGES.flatMap((pkg) => filesUnder(`${pkg}/src`))]
      .filter((file) => file !== "services/lib/runtime/src/tenant-id.ts")
      .flatMap((file) =>
        readFileSync(join(repoRoot, file), "utf8")
          .split("\n")
          .filter((line) => /\btenant\w*\??:\s*z\.string\(\)[^\n]*\.(max\(\d|regex\()/i.test(line))
          .map((line) => `${file}: ${line.trim()}`),
      );
    expect(spelled).toEqual([]);
  });
});

describe("services reach each other only over RPC or HTTP", () => {
  it.each(SERVICES)("%s/src imports no other service", (service) => {
    const crossings = filesUnder(`services/${service}/src`).flatMap((file) =>
      importsOf(file)
        .filter((specifier) => {
          const reached = serviceReached(file, specifier);
          return reached !== undefined && reached.service !== service;
        })
        .map((specifier) => `${file}: ${specifier}`),
    );
    expect(crossings).toEqual([]);
  });

  it.each([...SERVICES, "all-in-one"])(
    "%s/test imports no other service's src/ (only its package, to start it as a real component)",
    (service) => {
      const crossings = filesUnder(`services/${service}/test`).flatMap((file) =>
        importsOf(file)
          .filter((specifier) => {
            const reached = serviceReached(file, specifier);
            return reached !== undefined && reached.service !== service && reached.deep;
          })
          .map((specifier) => `${file}: ${specifier}`),
      );
      expect(crossings).toEqual([]);
    },
  );

  it("the shared libraries point inward: store and protocol import no runtime and no service; the runtime no service contract", () => {
    const offending = (lib: string, forbidden: RegExp) =>
      filesUnder(`services/lib/${lib}/src`).flatMap((file) =>
        importsOf(file)
          .filter((specifier) => forbidden.test(specifier) || serviceReached(file, specifier) !== undefined)
          .map((specifier) => `${file}: ${specifier}`),
      );
    expect(offending("store", /^@attesto\/(runtime|tenant-client|proto)\b/)).toEqual([]);
    expect(offending("protocol", /^@attesto\/(runtime|tenant-client|proto|store)\b/)).toEqual([]);
    expect(offending("runtime", /^@attesto\/(proto|tenant-client)\b/)).toEqual([]);
  });

  it("the check sees a crossing (it can fail)", () => {
    expect(serviceReached("services/holder/test/a.test.ts", "../../ledger/src/domain/base58.js")).toEqual({
      service: "ledger",
      deep: true,
    });
    expect(serviceReached("services/holder/test/a.test.ts", "@attesto/ledger")).toEqual({
      service: "ledger",
      deep: false,
    });
    expect(serviceReached("services/holder/test/a.test.ts", "@attesto/runtime/http")).toBeUndefined();
  });
});
