import { randomUUID } from "node:crypto";
import { conflict, forbidden } from "@attesto/runtime/errors";
import { generateApiKey, hashApiKey } from "./api-key.js";
import { credentialConfigurationId } from "./credential-configuration-id.js";
import type { RegisteredCredentialType, TrustRegistryDependencies } from "./ports.js";
import { DuplicateTenantError } from "./ports.js";
import type { CredentialConfiguration, TenantStatus } from "./tenant.js";

/** A validated `POST /v1/apply` body (tenant already lowercased). */
export interface TenantApplication {
  name: string;
  email?: string | undefined;
  password: string;
  tenant: string;
  isIssuer: boolean;
  isVerifier: boolean;
}

export interface TenantRegistration {
  accountUuid: string;
  /** APPROVED under `open` admission; PENDING under `approval` (the key works once approved). */
  status: TenantStatus;
  /** Plaintext, returned exactly once; only its SHA-256 is stored. */
  apiKey: string;
}

export const emailConflict = (email: string) => conflict(`Email '${email}' already exists`);
export const tenantConflict = (tenant: string) => conflict(`Tenant '${tenant}' already exists`);
export const REGISTRATION_CLOSED_MESSAGE =
  "Self-service registration is closed: tenants are created by the platform operator";

/** `closed` admission refuses self-registration outright (403), whatever the application says. */
export function assertSelfRegistrationOpen(domain: Pick<TrustRegistryDependencies, "tenantAdmission">): void {
  if (domain.tenantAdmission === "closed") throw forbidden(REGISTRATION_CLOSED_MESSAGE);
}

/** One configuration per registered type and version; ids follow credentialConfigurationId. */
export function provisionCredentialConfigurations(types: RegisteredCredentialType[]): CredentialConfiguration[] {
  const byId = new Map<string, CredentialConfiguration>();
  for (const { type, version, vct } of types) {
    const id = credentialConfigurationId(type, version);
    if (!byId.has(id)) byId.set(id, { id, type, version, vct });
  }
  return [...byId.values()];
}

/** Maps the store's uniqueness failure to the interface's 409 messages. */
export function toConflict(error: unknown, values: { email?: string | null | undefined; tenant: string }): unknown {
  if (!(error instanceof DuplicateTenantError)) return error;
  if (error.field === "email" && values.email) return emailConflict(values.email);
  return tenantConflict(values.tenant);
}

/** What an application uses. */
type ApplicationEdges = "tenants" | "tenantAdmission" | "credentialTypes" | "passwords" | "apiKeyFormat";

/**
 * `POST /v1/apply`: registers an organization, as TENANT_ADMISSION says.
 * 0. `closed`: refuse (403) before looking at anything;
 * 1. refuse a taken email, then a taken tenant (fast path; the unique indexes decide under races);
 * 2. read the active credential types (schema registry down => 503 and nothing written);
 * 3. hash the password (argon2id) and mint the API key;
 * 4. store tenant, key hash and credential configurations in one transaction: APPROVED under `open`,
 *    PENDING under `approval` (its key answers `Account is not approved` until approved).
 */
export async function applyForTenant(
  domain: Pick<TrustRegistryDependencies, ApplicationEdges>,
  application: TenantApplication,
): Promise<TenantRegistration> {
  const { tenants } = domain;
  assertSelfRegistrationOpen(domain);
  const status: TenantStatus = domain.tenantAdmission === "open" ? "APPROVED" : "PENDING";
  if (application.email && (await tenants.emailExists(application.email))) throw emailConflict(application.email);
  if (await tenants.findByTenant(application.tenant)) throw tenantConflict(application.tenant);

  const credentialConfigurations = provisionCredentialConfigurations(await domain.credentialTypes.listActive());
  const passwordHash = await domain.passwords.hash(application.password);
  const apiKey = generateApiKey(domain.apiKeyFormat);
  const accountUuid = randomUUID();
  try {
    await tenants.create({
      accountUuid,
      tenant: application.tenant,
      name: application.name,
      email: application.email ?? null,
      passwordHash,
      isIssuer: application.isIssuer,
      isVerifier: application.isVerifier,
      status,
      apiKeyHash: hashApiKey(apiKey),
      credentialConfigurations,
    });
  } catch (error) {
    throw toConflict(error, application);
  }
  return { accountUuid, status, apiKey };
}
