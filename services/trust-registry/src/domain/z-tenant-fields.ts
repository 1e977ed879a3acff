import { z } from "zod";

/**
 * Field rules of an organization (this service's README), shared by `POST /v1/apply`, `POST /v1/auth/login` and
 * the operator's ApplyTenant. Every message names the rule that was broken, because the wire
 * error is `Invalid <field>: <message>`.
 */
export const RESERVED_TENANT_PREFIXES = ["u-", "svc-", "admin-", "api-", "www-"] as const;

export const TENANT_MAX_LENGTH = 100;
export const NAME_MAX_LENGTH = 255;
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;
export const EMAIL_MAX_LENGTH = 254;

/** A string field with "is required" / "must be a string" messages instead of zod's generic ones. */
const requiredString = (field: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) });

export const zOrganizationName = requiredString("name")
  .min(1, "name must not be empty")
  .max(NAME_MAX_LENGTH, `name must be at most ${NAME_MAX_LENGTH} characters`);

export const zOrganizationPassword = requiredString("password")
  .min(PASSWORD_MIN_LENGTH, `password must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `password must be at most ${PASSWORD_MAX_LENGTH} characters`)
  .regex(/\p{Lu}/u, "password must contain an uppercase letter")
  .regex(/\p{Ll}/u, "password must contain a lowercase letter")
  .regex(/\p{Nd}/u, "password must contain a digit");

/** Lowercased first, so that the character and reserved-prefix rules apply to what is stored. */
export const zTenantIdentifier = requiredString("tenant")
  .toLowerCase()
  .min(1, "tenant must not be empty")
  .max(TENANT_MAX_LENGTH, `tenant must be at most ${TENANT_MAX_LENGTH} characters`)
  .regex(/^[a-z0-9_-]*$/, "tenant may contain only letters, digits, hyphens and underscores")
  .refine((tenant) => !RESERVED_TENANT_PREFIXES.some((prefix) => tenant.startsWith(prefix)), {
    message: `tenant must not start with a reserved prefix (${RESERVED_TENANT_PREFIXES.join(", ")})`,
  });

/** Optional contact address; an empty string or null counts as absent. */
export const zOrganizationEmail = z.preprocess(
  (value) => (value === "" || value === null ? undefined : value),
  z
    .string({ error: "email must be a string" })
    .trim()
    .max(EMAIL_MAX_LENGTH, `email must be at most ${EMAIL_MAX_LENGTH} characters`)
    .pipe(z.email({ error: "email must be a valid email address" }))
    .optional(),
);

export const zRoleFlag = (field: string) => z.boolean({ error: `${field} must be a boolean` }).default(true);

/** The organization login identifier: a UUID v4. */
export const zAccountUuid = requiredString("uuid").pipe(z.uuidv4({ error: "uuid must be a UUID v4" }));
