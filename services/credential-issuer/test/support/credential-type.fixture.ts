/** The credential type the schema registry double serves: a university diploma (trimmed seed). */
export const DIPLOMA_VCT = "https://schemas.example/schemas/university-diploma/v1";
export const BADGE_VCT = "https://schemas.example/schemas/employee-badge/v1";

export const diplomaSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "University Diploma",
  type: "object",
  properties: {
    given_name: { type: "string", minLength: 1, maxLength: 150 },
    family_name: { type: "string", minLength: 1, maxLength: 150 },
    birth_date: { type: "string", format: "date" },
    degree: {
      type: "object",
      additionalProperties: false,
      properties: {
        type: { type: "string", enum: ["bachelor", "master", "doctorate"] },
        name: { type: "string", minLength: 1 },
      },
      required: ["type", "name"],
    },
    awarded_on: { type: "string", format: "date" },
    courses: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        properties: { title: { type: "string", minLength: 1 }, grade: { type: "string" } },
        required: ["title"],
      },
    },
  },
  required: ["given_name", "family_name", "degree", "awarded_on"],
  additionalProperties: false,
};

/** The SD-JWT VC type metadata document, as GET /schemas/university-diploma/v1 serves it. */
export const diplomaMetadata = {
  vct: DIPLOMA_VCT,
  name: "University Diploma",
  description: "Higher-education qualification",
  display: [
    {
      locale: "en-US",
      name: "University Diploma",
      description: "Academic degree awarded by a university",
      rendering: {
        simple: {
          background_color: "#5B2C6F",
          text_color: "#FFFFFF",
          logo: { uri: "https://schemas.example/logo.png", alt_text: "Logo" },
        },
      },
    },
    { locale: "de-DE", name: "Hochschulabschluss" },
  ],
  status: "active",
  use_case: ["education_verification"],
  claims: [
    {
      path: ["given_name"],
      mandatory: true,
      display: [
        { locale: "en-US", label: "Given name" },
        { locale: "de-DE", label: "Vorname" },
      ],
    },
    { path: ["family_name"], mandatory: true },
    { path: ["degree"], mandatory: true, display: [{ locale: "en-US", label: "Degree" }] },
  ],
  schema: diplomaSchema,
  updated_at: "2026-01-01T00:00:00.000Z",
};

export const badgeSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: { employee_id: { type: "string" } },
  required: ["employee_id"],
};

export const badgeMetadata = {
  vct: BADGE_VCT,
  name: "Employee Badge",
  description: "Staff badge",
  display: [],
  status: "active",
  use_case: [],
  claims: [{ path: ["employee_id"], mandatory: true }],
  schema: badgeSchema,
  updated_at: "2026-01-01T00:00:00.000Z",
};

/** Claims that conform to the diploma schema. */
export const diplomaClaims = {
  given_name: "Erika",
  family_name: "Mustermann",
  birth_date: "1990-04-01",
  degree: { type: "master", name: "MSc Computer Science" },
  awarded_on: "2024-07-15",
  courses: [{ title: "Cryptography", grade: "1.0" }],
};
