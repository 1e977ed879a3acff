import { z } from "zod";
import { credentialTypeStatuses } from "./credential-type.js";

const JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema";

const zJsonObject = z.record(z.string(), z.json());
const zText = z.string().trim().min(1);

/** BCP 47 language tag, e.g. "en", "en-US", "de-CH". */
const zLocale = z.string().regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, "must be a BCP 47 language tag such as en-US");

/** Type and version appear as URL path segments: lowercase words, digits, dots, dashes and underscores. */
const zType = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9._-]{0,98}[a-z0-9])?$/, "must be lowercase letters, digits, '.', '-' or '_'");
const zVersion = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,48}[A-Za-z0-9])?$/, "must be letters, digits, '.', '-' or '_'");

const zTypeDisplay = z.strictObject({
  locale: zLocale,
  name: zText,
  description: zText.optional(),
  /** SD-JWT VC rendering hints (`simple`, `svg_templates`), kept as written. */
  rendering: zJsonObject.optional(),
});

const zClaimDisplay = z.strictObject({
  path: z.array(z.string().min(1)).min(1),
  display: z.array(z.strictObject({ locale: zLocale, label: zText, description: zText.optional() })).min(1),
});

/** The credential-subject schema: a JSON Schema 2020-12 object schema. Ajv checks the rest. */
const zSubjectSchema = z
  .object({
    $schema: z.literal(JSON_SCHEMA_2020_12, { error: `must be "${JSON_SCHEMA_2020_12}"` }),
    type: z.literal("object", { error: 'must be "object"' }),
    properties: z.record(z.string(), zJsonObject),
    required: z.array(z.string()).optional(),
  })
  .catchall(z.json());

/** A seed file: one credential type. Wire-style snake_case, like the documents it produces. */
export const zCredentialTypeSeed = z.strictObject({
  type: zType,
  version: zVersion,
  name: zText,
  description: zText,
  status: z.enum(credentialTypeStatuses),
  use_case: z.array(zText).min(1),
  display: z.array(zTypeDisplay).min(1),
  claim_display: z.array(zClaimDisplay).optional(),
  schema: zSubjectSchema,
});

export type CredentialTypeSeed = z.infer<typeof zCredentialTypeSeed>;
