import {
  API_VERSION,
  type CustomResource,
  describeSpecError,
  RESOURCE_KINDS,
  type ResourceKind,
  type Secret,
  zIssuerSpec,
  zTenantSpec,
  zVerifierPolicySpec,
} from "@attesto/operator/library";
import { z } from "zod";
import type { RawDocument } from "./read-manifests.js";

/** The spec schemas the operator parses resources with (the same rules and messages). */
const SPEC_SCHEMAS: Record<ResourceKind, z.ZodType> = {
  Tenant: zTenantSpec,
  Issuer: zIssuerSpec,
  VerifierPolicy: zVerifierPolicySpec,
};

export const DEFAULT_NAMESPACE = "default";

/** A Kubernetes object name (RFC 1123 subdomain), as the apiserver requires. */
const zName = z
  .string()
  .max(253, "must be at most 253 characters")
  .regex(
    /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/,
    "must be lowercase letters, digits, '-' and '.', starting and ending with a letter or digit",
  );

const zMetadata = z.object({
  name: zName,
  namespace: zName.optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});

const zBase64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "must be base64");
const zSecret = z.object({
  apiVersion: z.literal("v1"),
  kind: z.literal("Secret"),
  metadata: zMetadata,
  type: z.string().optional(),
  data: z.record(z.string(), zBase64).optional(),
  stringData: z.record(z.string(), z.string()).optional(),
});

export type Manifest =
  | { type: "resource"; source: string; resource: CustomResource & { kind: ResourceKind } }
  | { type: "secret"; source: string; secret: Secret };

const KIND_NAMES = [...Object.keys(RESOURCE_KINDS), "Secret"].join(", ");

function firstIssue(error: z.ZodError, prefix: string): string {
  const issue = error.issues[0];
  const path = [prefix, ...(issue?.path ?? []).map(String)].filter(Boolean).join(".");
  return `${path || "document"}: ${issue?.message ?? "invalid"}`;
}

/**
 * Checks one document the way the apiserver and the operator would: `apiVersion`, `kind`,
 * `metadata.name`, and the spec against the operator's schema. Throws naming the document.
 */
export function validateManifest(document: RawDocument): Manifest {
  const value = document.value;
  const fail = (message: string): never => {
    throw new Error(`${document.source}: ${message}`);
  };
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail("not a YAML mapping");
  const { apiVersion, kind, metadata, spec } = value as Record<string, unknown>;
  if (kind === "Secret") {
    const parsed = zSecret.safeParse(value);
    if (!parsed.success) return fail(firstIssue(parsed.error, ""));
    const { metadata: meta, data, stringData, type } = parsed.data;
    const encoded = Object.fromEntries(
      Object.entries(stringData ?? {}).map(([key, text]) => [key, Buffer.from(text, "utf8").toString("base64")]),
    );
    return {
      type: "secret",
      source: document.source,
      secret: {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: meta.name, namespace: meta.namespace ?? DEFAULT_NAMESPACE, labels: meta.labels },
        type: type ?? "Opaque",
        data: { ...(data ?? {}), ...encoded },
      },
    };
  }
  if (typeof kind !== "string" || !(kind in RESOURCE_KINDS)) return fail(`kind must be one of ${KIND_NAMES}`);
  if (apiVersion !== API_VERSION) return fail(`apiVersion must be ${API_VERSION} for ${kind}`);
  const meta = zMetadata.safeParse(metadata ?? {});
  if (!meta.success) return fail(firstIssue(meta.error, "metadata"));
  const schema = SPEC_SCHEMAS[kind as ResourceKind];
  const parsedSpec = schema.safeParse(spec ?? {});
  if (!parsedSpec.success) return fail(describeSpecError(parsedSpec.error));
  return {
    type: "resource",
    source: document.source,
    resource: {
      apiVersion: API_VERSION,
      kind: kind as ResourceKind,
      metadata: {
        name: meta.data.name,
        namespace: meta.data.namespace ?? DEFAULT_NAMESPACE,
        ...(meta.data.labels ? { labels: meta.data.labels } : {}),
        ...(meta.data.annotations ? { annotations: meta.data.annotations } : {}),
      },
      spec,
    },
  };
}

const identityOf = (manifest: Manifest) =>
  manifest.type === "secret"
    ? `Secret ${manifest.secret.metadata.namespace}/${manifest.secret.metadata.name}`
    : `${manifest.resource.kind} ${manifest.resource.metadata.namespace}/${manifest.resource.metadata.name}`;

/**
 * Validates every document; throws one error listing every invalid document (and any object
 * declared twice), so that nothing is applied from a set with a mistake in it.
 */
export function validateManifests(documents: readonly RawDocument[]): Manifest[] {
  const problems: string[] = [];
  const manifests: Manifest[] = [];
  const seen = new Map<string, string>();
  for (const document of documents) {
    try {
      const manifest = validateManifest(document);
      const identity = identityOf(manifest);
      const earlier = seen.get(identity);
      if (earlier) problems.push(`${document.source}: ${identity} is already declared in ${earlier}`);
      else seen.set(identity, document.source);
      manifests.push(manifest);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0) throw new ManifestValidationError(problems);
  return manifests;
}

export class ManifestValidationError extends Error {
  override name = "ManifestValidationError";
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
  }
}
