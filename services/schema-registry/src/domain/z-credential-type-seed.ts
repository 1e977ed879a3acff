import { z } from "zod";
import { credentialFormats, credentialTypeStatuses } from "./credential-type.js";

const JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema";

const zJsonObject = z.record(z.string(), z.json());
const zText = z.string().trim().min(1);

/** BCP 47 language tag, e.g. "en", "en-US", "de-CH". */
const zLocale = z.string().regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, "must be a BCP 47 language tag such as en-US");

/** Type and version appear as URL path segments: lowercase words, digits, dots, dashes and underscores. */
const TYPE_RULE = "must be lowercase letters, digits, '.', '-' or '_'";
const LOWERCASE_TYPE = /^[a-z0-9](?:[a-z0-9._-]{0,98}[a-z0-9])?$/;
/** Any case here: an mdoc type may be named by its doctype (`org.iso.18013.5.1.mDL`); others are lowercase. */
const ANY_CASE_TYPE = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$/;
const zType = z.string().regex(ANY_CASE_TYPE, TYPE_RULE);
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

/** ISO 18013-5 document types and namespaces: reverse-domain names such as "org.iso.18013.5.1.mDL". */
const zMdocName = z
  .string()
  .regex(
    /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,198}[A-Za-z0-9])?$/,
    "must be a reverse-domain name such as org.iso.18013.5.1.mDL",
  );

/** An mdoc type's schema: one property per namespace, each an object schema of its data elements. */
function checkMdocSchema(schema: { properties: Record<string, Record<string, unknown>> }, ctx: z.RefinementCtx) {
  const namespaces = Object.entries(schema.properties);
  if (namespaces.length === 0) {
    ctx.addIssue({
      code: "custom",
      path: ["schema", "properties"],
      message: "an mdoc type needs at least one namespace",
    });
  }
  for (const [namespace, namespaceSchema] of namespaces) {
    if (!zMdocName.safeParse(namespace).success) {
      ctx.addIssue({
        code: "custom",
        path: ["schema", "properties", namespace],
        message: "must be a namespace name such as org.iso.18013.5.1",
      });
    }
    const elements = namespaceSchema.properties;
    if (
      namespaceSchema.type !== "object" ||
      typeof elements !== "object" ||
      elements === null ||
      Array.isArray(elements)
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["schema", "properties", namespace],
        message: 'must be an object schema ("type": "object") whose properties are the data elements',
      });
    }
  }
}

/** A seed file: one credential type. Wire-style snake_case, like the documents it produces. */
export const zCredentialTypeSeed = z
  .strictObject({
    type: zType,
    version: zVersion,
    name: zText,
    description: zText,
    status: z.enum(credentialTypeStatuses),
    use_case: z.array(zText).min(1),
    display: z.array(zTypeDisplay).min(1),
    claim_display: z.array(zClaimDisplay).optional(),
    schema: zSubjectSchema,
    /** `dc+sd-jwt` (default) or `mso_mdoc`. */
    format: z.enum(credentialFormats).optional(),
    /** Required for (and only allowed with) `mso_mdoc`. */
    doctype: zMdocName.optional(),
  })
  .superRefine((seed, ctx) => {
    if (seed.format !== "mso_mdoc") {
      // Only when zType passed (an upper-case letter): zType already names any other fault of `type`, once.
      if (ANY_CASE_TYPE.test(seed.type) && !LOWERCASE_TYPE.test(seed.type)) {
        ctx.addIssue({ code: "custom", path: ["type"], message: TYPE_RULE });
      }
      if (seed.doctype !== undefined) {
        ctx.addIssue({ code: "custom", path: ["doctype"], message: 'is only allowed with format "mso_mdoc"' });
      }
      return;
    }
    if (seed.doctype === undefined) {
      ctx.addIssue({ code: "custom", path: ["doctype"], message: 'is required with format "mso_mdoc"' });
    }
    if (ANY_CASE_TYPE.test(seed.type) && !LOWERCASE_TYPE.test(seed.type) && seed.type !== seed.doctype) {
      ctx.addIssue({ code: "custom", path: ["type"], message: `${TYPE_RULE} (or equal the doctype)` });
    }
    checkMdocSchema(seed.schema, ctx);
  });

export type CredentialTypeSeed = z.infer<typeof zCredentialTypeSeed>;
