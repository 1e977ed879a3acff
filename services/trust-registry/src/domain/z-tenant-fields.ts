import { tenantIdProblem } from "@attesto/runtime/tenant-id";
import { z } from "zod";

/**
 * Field rules of an organization (this service's README), shared by `POST /v1/apply`, `POST /v1/auth/login` and
 * the operator's ApplyTenant. Every message names the rule that was broken, because the wire
 * error is `Invalid <field>: <message>`.
 */
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

/**
 * Lowercased first, so that the tenant identifier rules (@attesto/runtime's tenant-id, shared with
 * the operator and the other services) apply to what is stored.
 */
export const zTenantIdentifier = requiredString("tenant")
  .toLowerCase()
  .superRefine((tenant, context) => {
    const problem = tenantIdProblem(tenant, "tenant");
    if (problem) context.addIssue({ code: "custom", message: problem });
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
