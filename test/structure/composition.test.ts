import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGES, repoRoot, SERVICES } from "./packages.js";

/**
 * The composition contract of docs/architecture.md ("Composition contract"), checked on the source
 * files as text: every claim there that names a file or an import is held here.
 */

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

describe("every service has one composition root", () => {
  it.each(SERVICES)(
    "%s: src/config.ts, src/dependencies.ts with createDependencies(context, overrides = {}), app.ts, service.ts, main.ts",
    (service) => {
      const src = `services/${service}/src`;
      for (const file of ["config.ts", "dependencies.ts", "app.ts", "service.ts", "main.ts"]) {
        expect(existsSync(join(repoRoot, src, file)), `${src}/${file}`).toBe(true);
      }
      const dependencies = readFileSync(join(repoRoot, src, "dependencies.ts"), "utf8");
      expect(dependencies).toMatch(
        /export function createDependencies\(\s*context: ServiceContext<\w+>,\s*overrides: [^=]+ = \{\},?\s*\)/,
      );
    },
  );

  it.each(SERVICES)(
    "%s: the clock and the logger come from the context (no new Date(), no createLogger in src/)",
    (service) => {
      const offending = filesUnder(`services/${service}/src`).flatMap((file) =>
        readFileSync(join(repoRoot, file), "utf8")
          .split("\n")
          .filter((line) => /\bnew Date\(\)|\bcreateLogger\(/.test(line))
          .map((line) => `${file}: ${line.trim()}`),
      );
      expect(offending).toEqual([]);
    },
  );

  it.each(SERVICES)(
    "%s: ports in src/domain/ports.ts (no repository port declared elsewhere in domain/)",
    (service) => {
      const domain = `services/${service}/src/domain`;
      expect(existsSync(join(repoRoot, domain, "ports.ts")), `${domain}/ports.ts`).toBe(true);
      const elsewhere = filesUnder(domain)
        .filter((file) => file !== `${domain}/ports.ts`)
        .flatMap((file) =>
          [
            ...readFileSync(join(repoRoot, file), "utf8").matchAll(
              /^export (?:interface|type) (\w+Repositor(?:y|ies))\b/gm,
            ),
          ].map((match) => `${file}: ${match[1]}`),
        );
      expect(elsewhere).toEqual([]);
    },
  );
});

describe("use cases are typed with just what they use", () => {
  /** The type `createDependencies` (or, for the trust registry, `createDomain`) returns: what a use case must not take whole. */
  function wholeTypeOf(service: string): string[] {
    const text = readFileSync(join(repoRoot, `services/${service}/src/dependencies.ts`), "utf8");
    const returned = [...text.matchAll(/export function create(?:Dependencies|Domain)\([^)]*\):\s*(\w+)/g)].map(
      (match) => match[1]!,
    );
    // The scheduler's runtime is its job queue and `deps: NotaryDependencies`, what its use cases share.
    return service === "scheduler" ? [...returned, "NotaryDependencies"] : returned;
  }

  it.each(SERVICES)(
    "%s: no domain function takes the whole dependencies type (a Pick<…> or a type of its own)",
    (service) => {
      const whole = wholeTypeOf(service);
      expect(whole.length).toBeGreaterThan(0);
      const parameter = new RegExp(`\\w+:\\s*(?:${whole.join("|")})\\s*[,)=]`);
      const offending = filesUnder(`services/${service}/src/domain`)
        .filter((file) => !file.endsWith("/ports.ts"))
        .flatMap((file) =>
          readFileSync(join(repoRoot, file), "utf8")
            .split("\n")
            .filter((line) => parameter.test(line))
            .map((line) => `${file}: ${line.trim()}`),
        );
      expect(offending).toEqual([]);
    },
  );
});

describe("one domain per running service", () => {
  it("the trust registry's module builds its use cases once, shared by the public app and the internal RPC", () => {
    const service = readFileSync(join(repoRoot, "services/trust-registry/src/service.ts"), "utf8");
    expect(service.match(/\bcreateDomain\(/g)).toHaveLength(1);
    expect(service).toMatch(/const domainOf = perService\(/);
  });
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

describe("the operator and the CLI", () => {
  /** The runtime subpaths docs/architecture.md names for them: configuration, logging, RPC and rules without I/O. */
  const RUNTIME_SUBPATHS = ["backoff", "config", "logging", "rpc", "status-list-size", "tenant-id"];

  it.each(["operator", "cli"])(
    "%s/src uses only the runtime's /config, /logging, /rpc and rule subpaths, and no service",
    (pkg) => {
      const offending = filesUnder(`${pkg}/src`).flatMap((file) =>
        importsOf(file)
          .filter((specifier) => {
            const runtime = /^@attesto\/runtime(?:\/(.+))?$/.exec(specifier);
            if (runtime) return !RUNTIME_SUBPATHS.includes(runtime[1] ?? "");
            return serviceReached(file, specifier) !== undefined;
          })
          .map((specifier) => `${file}: ${specifier}`),
      );
      expect(offending).toEqual([]);
    },
  );

  it("no package ships a TypeScript loader: tsx is only ever a devDependency", () => {
    const shipping = [".", ...PACKAGES].filter((pkg) => {
      const manifest = JSON.parse(readFileSync(join(repoRoot, pkg, "package.json"), "utf8")) as {
        dependencies?: Record<string, string>;
      };
      return manifest.dependencies?.tsx !== undefined;
    });
    expect(shipping).toEqual([]);
  });
});
