import { readFileSync } from "node:fs";
import { join } from "node:path";
import { zIssuerSpec, zTenantSpec, zVerifierPolicySpec } from "@attesto/operator";
import {
  DEFAULT_STATUS_LIST_SIZE,
  isStatusListSize,
  MAX_STATUS_LIST_SIZE,
  MIN_STATUS_LIST_SIZE,
  STATUS_LIST_SIZE_RULE,
} from "@attesto/runtime/status-list-size";
import {
  isTenantId,
  RESERVED_TENANT_PREFIXES,
  TENANT_ID_MAX_LENGTH,
  TENANT_ID_PATTERN,
  tenantIdProblem,
} from "@attesto/runtime/tenant-id";
import { type CelInput, parse as parseCel, run } from "@bufbuild/cel";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { crdFiles, diffCrds, sourceDir } from "../../hack/helm/sync-crds.js";
import { readExample } from "./support/examples.js";
import { validateObject } from "./support/validate-model.js";

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  "x-kubernetes-validations"?: Array<{ rule: string; message?: string }>;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  [key: string]: unknown;
}

interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    group: string;
    names: { kind: string; plural: string };
    versions: Array<{
      name: string;
      subresources?: { status?: object };
      additionalPrinterColumns?: Array<{ name: string; jsonPath: string }>;
      schema: { openAPIV3Schema: Schema };
    }>;
  };
}

const crds = new Map<string, Crd>(
  crdFiles().map((file) => {
    const crd = parse(readFileSync(join(sourceDir, file), "utf8")) as Crd;
    return [crd.spec.names.kind, crd];
  }),
);
const schemaOf = (kind: string) => crds.get(kind)!.spec.versions[0]!.schema.openAPIV3Schema;

/** Every CEL rule of a schema, with the path of the node it sits on. */
function rulesOf(schema: Schema, path = ""): Array<{ path: string; rule: string }> {
  const own = (schema["x-kubernetes-validations"] ?? []).map((v) => ({ path, rule: v.rule }));
  const children = [
    ...Object.entries(schema.properties ?? {}).map(([key, child]) => rulesOf(child, `${path}.${key}`)),
    ...(schema.items ? [rulesOf(schema.items, `${path}[]`)] : []),
  ];
  return [...own, ...children.flat()];
}

/** Structural schema: every node has a type (apiextensions.k8s.io/v1 refuses the CRD otherwise). */
function untypedNodes(schema: Schema, path = ""): string[] {
  const here = schema.type || schema["x-kubernetes-preserve-unknown-fields"] ? [] : [path || "(root)"];
  return [
    ...here,
    ...Object.entries(schema.properties ?? {}).flatMap(([key, child]) => untypedNodes(child, `${path}.${key}`)),
    ...(schema.items ? untypedNodes(schema.items, `${path}[]`) : []),
  ];
}

/** The CEL rule at `path` of `kind`, evaluated on `self` (and `oldSelf` for transition rules). */
function cel(kind: string, path: string, index: number, self: unknown, oldSelf?: unknown): boolean {
  const rule = rulesOf(schemaOf(kind)).filter((r) => r.path === path)[index];
  if (!rule) throw new Error(`no rule ${index} at ${kind}${path}`);
  const bindings = (oldSelf === undefined ? { self } : { self, oldSelf }) as Record<string, CelInput>;
  return run(rule.rule, bindings) as boolean;
}

const ajv = new Ajv({ strict: false, allErrors: true });
/** The structural schema as JSON Schema (x-kubernetes-* extensions are ignored by ajv). */
function validateAgainstCrd(kind: string, object: unknown): string[] {
  const validate = ajv.compile(schemaOf(kind));
  return validate(object) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe("CRDs (crds/, the source of truth)", () => {
  it("are the three kinds of attesto.dev/v1alpha1, valid CustomResourceDefinitions", async () => {
    expect([...crds.keys()].sort()).toEqual(["Issuer", "Tenant", "VerifierPolicy"]);
    for (const crd of crds.values()) {
      await validateObject(crd as never);
      expect(crd.spec.group).toBe("attesto.dev");
      expect(crd.metadata.name).toBe(`${crd.spec.names.plural}.attesto.dev`);
      const [version] = crd.spec.versions;
      expect(version?.name).toBe("v1alpha1");
      expect(version?.subresources).toEqual({ status: {} });
      expect(version?.additionalPrinterColumns?.map((c) => c.name)).toEqual(expect.arrayContaining(["Ready", "Age"]));
      expect(untypedNodes(version!.schema.openAPIV3Schema)).toEqual([]);
    }
  });

  it("are copied, byte for byte, into the chart (npx tsx hack/helm/sync-crds.ts)", () => {
    expect(diffCrds()).toEqual([]);
  });

  it("every CEL rule parses", () => {
    const rules = [...crds.values()].flatMap((crd) => rulesOf(crd.spec.versions[0]!.schema.openAPIV3Schema));
    expect(rules.length).toBe(6);
    for (const { rule } of rules) expect(() => parseCel(rule), rule).not.toThrow();
    expect(() => parseCel("self.(")).toThrow();
  });

  it("Tenant.spec.tenantId: the platform's tenant id rules (@attesto/runtime tenant-id), reserved prefixes by CEL, immutable", () => {
    const tenantId = schemaOf("Tenant").properties!.spec!.properties!.tenantId!;
    expect(tenantId.pattern).toBe(TENANT_ID_PATTERN.source);
    expect(tenantId.maxLength).toBe(TENANT_ID_MAX_LENGTH);
    expect(tenantId.minLength).toBe(1);
    expect(tenantId["x-kubernetes-validations"]?.[0]?.message).toBe(tenantIdProblem("u-acme", "tenantId"));
    const pattern = new RegExp(tenantId.pattern as string);
    const crdAccepts = (id: string) =>
      validateAgainstCrd("Tenant", { spec: { organizationName: "A", tenantId: id } }).length === 0 &&
      cel("Tenant", ".spec.tenantId", 0, id);
    const ids = ["acme", "a", "acme_university-2", "uacme", "x".repeat(100), "x".repeat(101), "", "ACME", "Acme"];
    for (const id of [...ids, "a b", "acme.org", "écoles", ...RESERVED_TENANT_PREFIXES.map((p) => `${p}acme`)]) {
      expect(crdAccepts(id), id).toBe(isTenantId(id));
    }
    expect(pattern.test("acme_university-2")).toBe(true);
    expect(pattern.test("Acme")).toBe(false);
    for (const prefix of RESERVED_TENANT_PREFIXES) {
      expect(cel("Tenant", ".spec.tenantId", 0, `${prefix}acme`)).toBe(false);
    }
    expect(cel("Tenant", ".spec.tenantId", 0, "uacme")).toBe(true);
    expect(cel("Tenant", ".spec.tenantId", 1, "acme", "acme")).toBe(true);
    expect(cel("Tenant", ".spec.tenantId", 1, "acme2", "acme")).toBe(false);
    expect(validateAgainstCrd("Tenant", { spec: { organizationName: "A", tenantId: "x".repeat(101) } })).toEqual([
      "/spec/tenantId must NOT have more than 100 characters",
    ]);
  });

  it("Tenant roles and webhooks rules", () => {
    expect(cel("Tenant", ".spec.roles", 0, { issuer: false, verifier: false })).toBe(false);
    expect(cel("Tenant", ".spec.roles", 0, { issuer: false, verifier: true })).toBe(true);
    expect(cel("Tenant", ".spec.webhooks", 0, [{ url: "https://a" }, { url: "https://a" }])).toBe(false);
    expect(cel("Tenant", ".spec.webhooks", 0, [{ url: "https://a" }, { url: "https://b" }])).toBe(true);
  });

  it("Issuer: certificateRef only with X509, keyRef only with DID", () => {
    expect(cel("Issuer", ".spec", 0, { signingMode: "DID", certificateRef: { name: "c" } })).toBe(false);
    expect(cel("Issuer", ".spec", 0, { signingMode: "X509", certificateRef: { name: "c" } })).toBe(true);
    expect(cel("Issuer", ".spec", 1, { signingMode: "X509", keyRef: { name: "k" } })).toBe(false);
    expect(cel("Issuer", ".spec", 1, { signingMode: "DID", keyRef: { name: "k" } })).toBe(true);
    expect(
      validateAgainstCrd("Issuer", {
        spec: { tenantRef: { name: "a" }, credentialConfigurations: [], signingMode: "PGP" },
      }),
    ).toEqual(
      expect.arrayContaining([
        "/spec/credentialConfigurations must NOT have fewer than 1 items",
        "/spec/signingMode must be equal to one of the allowed values",
      ]),
    );
  });

  it("Issuer.spec.statusListSize: exactly the sizes of @attesto/runtime/status-list-size, in the CRD and the operator", () => {
    const property = schemaOf("Issuer").properties!.spec!.properties!.statusListSize!;
    expect(property.type).toBe("integer");
    expect(property.default).toBeUndefined();
    const spec = (statusListSize: unknown) => ({
      tenantRef: { name: "a" },
      credentialConfigurations: [{ type: "university-diploma", version: "v1" }],
      statusListSize,
    });
    const candidates = [
      ...Array.from({ length: 31 }, (_, n) => 2 ** n),
      DEFAULT_STATUS_LIST_SIZE + 1,
      MIN_STATUS_LIST_SIZE - 1,
      MAX_STATUS_LIST_SIZE + 1,
      3000,
      -1024,
      0,
      1024.5,
    ];
    for (const size of candidates) {
      const crdAccepts = validateAgainstCrd("Issuer", { spec: spec(size) }).length === 0;
      expect(crdAccepts, `CRD ${size}`).toBe(isStatusListSize(size));
      expect(zIssuerSpec.safeParse(spec(size)).success, `operator ${size}`).toBe(isStatusListSize(size));
    }
    expect(validateAgainstCrd("Issuer", { spec: spec(1000) })).toEqual([
      "/spec/statusListSize must be equal to one of the allowed values",
    ]);
    const refused = zIssuerSpec.safeParse(spec(1000));
    expect(refused.success || refused.error.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["statusListSize", STATUS_LIST_SIZE_RULE],
    ]);
    // Absent: the credential issuer's STATUS_LIST_SIZE (the operator sends 0).
    const { statusListSize: _, ...withoutSize } = spec(undefined);
    expect(validateAgainstCrd("Issuer", { spec: withoutSize })).toEqual([]);
    expect(zIssuerSpec.parse(withoutSize).statusListSize).toBeUndefined();
  });

  it("VerifierPolicy: verification mode, session TTL bounds and DID shape", () => {
    expect(
      validateAgainstCrd("VerifierPolicy", {
        spec: {
          tenantRef: { name: "a" },
          verificationMode: "sometimes",
          sessionTtlSeconds: 5,
          trustedIssuers: { dids: ["not-a-did"] },
        },
      }),
    ).toEqual(
      expect.arrayContaining([
        "/spec/verificationMode must be equal to one of the allowed values",
        "/spec/sessionTtlSeconds must be >= 60",
        '/spec/trustedIssuers/dids/0 must match pattern "^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$"',
      ]),
    );
  });

  it("the example resources (operator/examples) validate against the CRDs and the operator's schemas", () => {
    const parsers = { Tenant: zTenantSpec, Issuer: zIssuerSpec, VerifierPolicy: zVerifierPolicySpec } as const;
    for (const file of ["tenant.yaml", "issuer.yaml", "verifier-policy.yaml"]) {
      for (const document of readExample(file).filter((d) => d.kind !== "Secret")) {
        const kind = document.kind as keyof typeof parsers;
        expect(validateAgainstCrd(kind, document), `${file}`).toEqual([]);
        expect(parsers[kind].safeParse(document.spec).success, `${file}`).toBe(true);
        for (const { path, rule } of rulesOf(schemaOf(kind))) {
          const self = path
            .split(".")
            .filter(Boolean)
            .reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], document);
          if (self !== undefined && !rule.includes("oldSelf"))
            expect(run(rule, { self: self as CelInput }), `${file} ${path}: ${rule}`).toBe(true);
        }
      }
    }
  });
});
