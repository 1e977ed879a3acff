import { badRequest, notFound } from "@attesto/runtime/errors";
import { isStatusListSize, STATUS_LIST_SIZES } from "@attesto/runtime/status-list-size";
import { isTenantId } from "@attesto/runtime/tenant-id";
import { z } from "zod";
import { OFFER_TTL_SECONDS } from "./create-offer.js";
import {
  type CredentialDisplay,
  type DeclaredIssuerConfiguration,
  digestOf,
  type IssuerConfiguration,
  type OfferedConfiguration,
} from "./issuer-configuration.js";
import type { IssuerDependencies, IssuerTenant } from "./ports.js";

/** An issuer configuration as the operator sends it (proto fields; empty string or 0 = unset). */
export interface IssuerConfigurationInput {
  tenant: string;
  issuerName: string;
  credentialConfigurations: Array<{
    id: string;
    display: Array<{
      name: string;
      locale: string;
      description: string;
      backgroundColor: string;
      textColor: string;
      logoUri: string;
      logoAltText: string;
    }>;
  }>;
  signingMode: "unspecified" | "did" | "x509";
  signingKeyId: string;
  defaultOfferTtlSeconds: number;
  statusListSize: number;
}

type Dependencies = Pick<IssuerDependencies, "tenants" | "issuerConfigurations" | "now">;

/** An optional proto string: "" is unset (undefined), anything else must pass `schema`. */
const optional = (schema: z.ZodString) => z.union([z.literal("").transform(() => undefined), schema]);

const zDisplay = z
  .object({
    name: z.string().min(1, "is required").max(255, "must be at most 255 characters"),
    locale: optional(
      z
        .string()
        .max(35, "must be at most 35 characters")
        .regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, "must be a BCP 47 language tag"),
    ),
    description: optional(z.string().max(1024, "must be at most 1024 characters")),
    backgroundColor: optional(z.string().max(32, "must be at most 32 characters")),
    textColor: optional(z.string().max(32, "must be at most 32 characters")),
    logoUri: optional(
      z
        .string()
        .max(2048, "must be at most 2048 characters")
        .regex(/^(https?|data):[^\s]+$/, "must be an http(s) or data URI"),
    ),
    logoAltText: optional(z.string().max(255, "must be at most 255 characters")),
  })
  .refine((display) => !display.logoAltText || display.logoUri, {
    message: "logo_alt_text requires logo_uri",
    path: ["logoAltText"],
  });

const zInput = z.object({
  tenant: z.string().refine(isTenantId, "must be a tenant identifier"),
  issuerName: z.string().max(320, "must be at most 320 characters"),
  credentialConfigurations: z
    .array(
      z.object({
        id: z.string().min(1, "is required").max(200, "must be at most 200 characters"),
        display: z.array(zDisplay).max(20, "must have at most 20 entries"),
      }),
    )
    .min(1, "must name at least one credential configuration")
    .max(50, "must have at most 50 entries")
    .refine((list) => new Set(list.map((c) => c.id)).size === list.length, "ids must be unique"),
  signingMode: z.enum(["unspecified", "did", "x509"], { error: "must be DID or X509" }),
  signingKeyId: z.string().max(200, "must be at most 200 characters"),
  defaultOfferTtlSeconds: z
    .number()
    .int()
    .refine(
      (ttl) => ttl === 0 || (ttl >= OFFER_TTL_SECONDS.min && ttl <= OFFER_TTL_SECONDS.max),
      `must be 0 (platform default) or from ${OFFER_TTL_SECONDS.min} to ${OFFER_TTL_SECONDS.max} seconds`,
    ),
  statusListSize: z
    .number()
    .int()
    .refine((size) => size === 0 || isStatusListSize(size), `must be 0 (platform default) or ${STATUS_LIST_SIZES}`),
});

const SNAKE: Record<string, string> = {
  issuerName: "issuer_name",
  credentialConfigurations: "credential_configurations",
  signingMode: "signing_mode",
  signingKeyId: "signing_key_id",
  defaultOfferTtlSeconds: "default_offer_ttl_seconds",
  statusListSize: "status_list_size",
  backgroundColor: "background_color",
  textColor: "text_color",
  logoUri: "logo_uri",
  logoAltText: "logo_alt_text",
};

/** `credential_configurations[0].display[1].logo_uri: must be an absolute https URL`. */
function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid issuer configuration";
  const path = issue.path
    .map((part, index) =>
      typeof part === "number" ? `[${part}]` : `${index > 0 ? "." : ""}${SNAKE[part as string] ?? String(part)}`,
    )
    .join("");
  return path ? `${path}: ${issue.message}` : issue.message;
}

function toDisplay(display: z.output<typeof zDisplay>): CredentialDisplay {
  return {
    name: display.name,
    ...(display.locale ? { locale: display.locale } : {}),
    ...(display.description ? { description: display.description } : {}),
    ...(display.backgroundColor ? { background_color: display.backgroundColor } : {}),
    ...(display.textColor ? { text_color: display.textColor } : {}),
    ...(display.logoUri
      ? { logo: { uri: display.logoUri, ...(display.logoAltText ? { alt_text: display.logoAltText } : {}) } }
      : {}),
  };
}

/** Checks the declaration field by field (400 naming the field), then against the tenant (404, 400). */
async function validate(deps: Dependencies, input: IssuerConfigurationInput): Promise<DeclaredIssuerConfiguration> {
  const parsed = zInput.safeParse(input);
  if (!parsed.success) throw badRequest(describe(parsed.error));
  const declared = parsed.data;
  if (declared.signingKeyId && declared.signingMode !== "x509") {
    throw badRequest("signing_key_id: is only allowed with signing_mode X509");
  }
  const unknownOf = (tenant: IssuerTenant) => {
    const provisioned = new Set(tenant.configurations.map((c) => c.id));
    return declared.credentialConfigurations.filter((c) => !provisioned.has(c.id)).map((c) => c.id);
  };
  // A credential type added a moment ago (`attesto types add`) is known: the directory is never behind.
  const tenant = await deps.tenants.find(declared.tenant);
  if (!tenant) throw notFound("Tenant not found");
  const unknown = unknownOf(tenant);
  if (unknown.length > 0) {
    throw badRequest(
      `credential_configurations: not credential configurations of tenant '${declared.tenant}': ${unknown.join(", ")}`,
    );
  }
  const credentialConfigurations: OfferedConfiguration[] = declared.credentialConfigurations.map((c) => ({
    id: c.id,
    display: c.display.map(toDisplay),
  }));
  return {
    tenant: declared.tenant,
    issuerName: declared.issuerName,
    credentialConfigurations,
    ...(declared.signingMode === "unspecified" ? {} : { signingMode: declared.signingMode }),
    ...(declared.signingKeyId ? { signingKeyId: declared.signingKeyId } : {}),
    ...(declared.defaultOfferTtlSeconds === 0 ? {} : { defaultOfferTtlSeconds: declared.defaultOfferTtlSeconds }),
    ...(declared.statusListSize === 0 ? {} : { statusListSize: declared.statusListSize }),
  };
}

/**
 * IssuerService.ApplyIssuerConfiguration: validates and stores the tenant's configuration.
 * Idempotent by digest: the same declaration again writes nothing (`changed` false).
 */
export async function applyIssuerConfiguration(
  deps: Dependencies,
  input: IssuerConfigurationInput,
): Promise<{ configuration: IssuerConfiguration; changed: boolean }> {
  const declared = await validate(deps, input);
  const digest = digestOf(declared);
  const stored = await deps.issuerConfigurations.find(declared.tenant);
  if (stored?.digest === digest) return { configuration: stored, changed: false };
  const configuration: IssuerConfiguration = { ...declared, digest, updatedAt: deps.now() };
  const changed = await deps.issuerConfigurations.put(configuration);
  if (changed) return { configuration, changed };
  // A concurrent apply stored the same digest first: answer what is stored.
  return { configuration: (await deps.issuerConfigurations.find(declared.tenant)) ?? configuration, changed };
}

function checkTenant(tenant: string): string {
  if (!isTenantId(tenant)) throw badRequest("tenant: must be a tenant identifier");
  return tenant;
}

/** IssuerService.DeleteIssuerConfiguration: the tenant's issuer falls back to the platform defaults. */
export async function deleteIssuerConfiguration(deps: Dependencies, tenant: string): Promise<boolean> {
  return deps.issuerConfigurations.delete(checkTenant(tenant));
}

/** IssuerService.GetIssuerConfiguration: 404 when the tenant has none. */
export async function getIssuerConfiguration(deps: Dependencies, tenant: string): Promise<IssuerConfiguration> {
  const found = await deps.issuerConfigurations.find(checkTenant(tenant));
  if (!found) throw notFound("the tenant has no issuer configuration");
  return found;
}
