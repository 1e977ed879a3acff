import type { z } from "zod";
import { compileSubjectSchema } from "./compile-subject-schema.js";
import type { CredentialTypeDefinition } from "./credential-type.js";
import { deriveClaims } from "./derive-claims.js";
import { SeedError } from "./seed-error.js";
import { zCredentialTypeSeed } from "./z-credential-type-seed.js";

/** The raw content of one seed file. */
export interface SeedFile {
  /** Path or name of the file, used in error messages. */
  file: string;
  text: string;
}

/** `field.path: message` per issue, `(root)` for the document itself. */
function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`);
}

function parseJson(seed: SeedFile): unknown {
  try {
    return JSON.parse(seed.text);
  } catch (error) {
    throw new SeedError(seed.file, `not valid JSON (${(error as Error).message})`, { cause: error });
  }
}

/**
 * Every problem of a credential type definition (already parsed JSON), one `field: message` per
 * entry, or the definition: a field missing or malformed, a subject schema that Ajv (2020-12,
 * strict) cannot compile, or claim labels for paths the schema does not have.
 */
export function checkCredentialTypeDefinition(
  value: unknown,
): { definition: CredentialTypeDefinition; problems?: undefined } | { problems: string[] } {
  const parsed = zCredentialTypeSeed.safeParse(value);
  if (!parsed.success) return { problems: describeIssues(parsed.error) };
  const fields = parsed.data;
  try {
    compileSubjectSchema(fields.schema);
  } catch (error) {
    return { problems: [`schema: does not compile as JSON Schema 2020-12: ${(error as Error).message}`] };
  }
  const claimDisplay = fields.claim_display ?? [];
  const known = new Set(deriveClaims(fields.schema).map((claim) => JSON.stringify(claim.path)));
  const unknown = claimDisplay.filter((entry) => !known.has(JSON.stringify(entry.path)));
  if (unknown.length > 0) {
    return {
      problems: unknown.map(
        (entry) => `claim_display: path ${JSON.stringify(entry.path)} is not a property of the schema`,
      ),
    };
  }
  return {
    definition: {
      type: fields.type,
      version: fields.version,
      name: fields.name,
      description: fields.description,
      status: fields.status,
      useCase: fields.use_case,
      display: fields.display,
      claimDisplay,
      schema: fields.schema,
      ...(fields.format === "mso_mdoc" ? { format: fields.format, doctype: fields.doctype } : {}),
    },
  };
}

/**
 * Turns one seed file into a credential type definition, or throws a SeedError naming the file and
 * the problem: bad JSON, a field missing or malformed, a subject schema that Ajv (2020-12, strict)
 * cannot compile, or claim labels for paths the schema does not have.
 */
export function parseCredentialTypeSeed(seed: SeedFile): CredentialTypeDefinition {
  const checked = checkCredentialTypeDefinition(parseJson(seed));
  if (checked.problems) throw new SeedError(seed.file, checked.problems.slice(0, 5).join("; "));
  return checked.definition;
}
