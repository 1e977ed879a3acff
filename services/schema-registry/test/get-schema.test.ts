import { readFileSync } from "node:fs";
import { invalidFieldsBody } from "@attesto/runtime/testing";
import { Ajv2020 } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtInSeedsDir } from "../src/config.js";
import { startTestRegistry, type TestRegistry } from "./test-registry.js";

interface SeedFile {
  type: string;
  version: string;
  name: string;
  description: string;
  use_case: string[];
  display: unknown[];
  claim_display: Array<{ path: string[]; display: unknown[] }>;
  schema: Record<string, unknown>;
}

const readSeed = (file: string) => JSON.parse(readFileSync(`${builtInSeedsDir}/${file}`, "utf8")) as SeedFile;

/**
 * The expected claims, written out: "a.b" is the path ["a", "b"], a trailing "!" marks it mandatory.
 * Labels are the seed's own claim_display entries.
 */
function claimsOf(seed: SeedFile, paths: string[]) {
  return paths.map((entry) => {
    const mandatory = entry.endsWith("!");
    const path = entry.replace(/!$/, "").split(".");
    const labels = seed.claim_display.find((label) => JSON.stringify(label.path) === JSON.stringify(path));
    return labels ? { path, mandatory, display: labels.display } : { path, mandatory };
  });
}

const isoTimestamp = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

const cases = [
  {
    file: "person-identification-data.v1.json",
    name: "Person Identification Data (PID)",
    claims: [
      "family_name!",
      "given_name!",
      "birth_date!",
      "birth_place!",
      "nationalities!",
      "resident_address",
      "resident_address.formatted",
      "resident_address.street_address",
      "resident_address.house_number",
      "resident_address.postal_code",
      "resident_address.locality",
      "resident_address.region",
      "resident_address.country",
      "age_over_18",
      "age_in_years",
      "age_birth_year",
      "family_name_birth",
      "given_name_birth",
      "sex",
      "email_address",
      "mobile_phone_number",
      "personal_administrative_number",
      "document_number",
      "issuance_date",
      "expiry_date!",
      "issuing_authority!",
      "issuing_country!",
      "issuing_jurisdiction",
    ],
    valid: {
      family_name: "Mustermann",
      given_name: "Erika",
      birth_date: "1964-08-12",
      birth_place: "Berlin",
      nationalities: ["DE"],
      resident_address: {
        street_address: "Heidestraße",
        house_number: "17",
        postal_code: "51147",
        locality: "Köln",
        country: "DE",
      },
      age_over_18: true,
      email_address: "erika@example.com",
      expiry_date: "2034-08-11",
      issuing_authority: "Bundesdruckerei",
      issuing_country: "DE",
    },
    invalid: { family_name: "Mustermann", given_name: "Erika", birth_date: "12.08.1964" },
  },
  {
    file: "university-diploma.v1.json",
    name: "University Diploma",
    claims: [
      "given_name!",
      "family_name!",
      "birth_date",
      "student_identifier",
      "degree!",
      "degree.type!",
      "degree.name!",
      "degree.field_of_study",
      "degree.eqf_level",
      "degree.ects_credits",
      "institution!",
      "institution.name!",
      "institution.country!",
      "institution.identifier",
      "institution.website",
      "awarded_on!",
      "grade",
      "honours",
      "thesis_title",
      "courses",
    ],
    valid: {
      given_name: "Ada",
      family_name: "Lovelace",
      degree: { type: "master", name: "Master of Science in Mathematics", eqf_level: 7, ects_credits: 120 },
      institution: { name: "University of London", country: "GB", website: "https://www.london.ac.uk" },
      awarded_on: "2024-07-01",
      courses: [{ title: "Analytical Engines", grade: "A" }],
    },
    invalid: {
      given_name: "Ada",
      family_name: "Lovelace",
      degree: { type: "master", name: "MSc", eqf_level: 9 },
      institution: { name: "University of London", country: "GB" },
      awarded_on: "2024-07-01",
    },
  },
  {
    file: "employee-badge.v1.json",
    name: "Employee Badge",
    claims: [
      "employee_id!",
      "given_name!",
      "family_name!",
      "email",
      "job_title",
      "department",
      "employment_type",
      "employer!",
      "employer.name!",
      "employer.legal_entity_identifier",
      "employer.country",
      "work_location",
      "work_location.site",
      "work_location.locality",
      "work_location.country",
      "access_levels",
      "portrait",
      "valid_from!",
      "valid_until",
    ],
    valid: {
      employee_id: "E-1042",
      given_name: "Grace",
      family_name: "Hopper",
      email: "grace.hopper@example.com",
      employer: { name: "Example Systems GmbH", legal_entity_identifier: "5299000J2N45DDNE4Y28", country: "DE" },
      access_levels: ["building-a", "lab"],
      valid_from: "2025-01-01",
    },
    invalid: {
      employee_id: "E-1042",
      given_name: "Grace",
      family_name: "Hopper",
      employer: {},
      valid_from: "2025-01-01",
    },
  },
  {
    file: "driving-licence.v1.json",
    name: "Mobile Driving Licence",
    claims: [
      "family_name!",
      "given_name!",
      "birth_date!",
      "issue_date!",
      "expiry_date!",
      "issuing_country!",
      "issuing_authority!",
      "issuing_jurisdiction",
      "document_number!",
      "administrative_number",
      "portrait!",
      "portrait_capture_date",
      "un_distinguishing_sign!",
      "driving_privileges!",
      "sex",
      "height",
      "weight",
      "eye_colour",
      "hair_colour",
      "birth_place",
      "resident_address",
      "resident_city",
      "resident_postal_code",
      "resident_country",
      "nationality",
      "age_over_18",
      "age_over_21",
    ],
    valid: {
      family_name: "Doe",
      given_name: "Jane",
      birth_date: "1990-02-28",
      issue_date: "2023-05-01",
      expiry_date: "2038-04-30",
      issuing_country: "NL",
      issuing_authority: "RDW",
      document_number: "5029384756",
      portrait: "/9j/4AAQSkZJRgABAQ==",
      un_distinguishing_sign: "NL",
      driving_privileges: [
        { vehicle_category_code: "B", issue_date: "2008-03-01", codes: [{ code: "01.06" }] },
        { vehicle_category_code: "AM", issue_date: "2006-07-14" },
      ],
      age_over_18: true,
    },
    invalid: {
      family_name: "Doe",
      given_name: "Jane",
      birth_date: "1990-02-28",
      issue_date: "2023-05-01",
      expiry_date: "2038-04-30",
      issuing_country: "NL",
      issuing_authority: "RDW",
      document_number: "5029384756",
      portrait: "/9j/4AAQSkZJRgABAQ==",
      un_distinguishing_sign: "NL",
      driving_privileges: [{ vehicle_category_code: "Z" }],
    },
  },
];

describe("GET /schemas/:type/:version", () => {
  let registry: TestRegistry;

  beforeAll(async () => {
    registry = await startTestRegistry();
  });
  afterAll(async () => {
    await registry.close();
  });

  const get = (url: string) => registry.app.inject({ method: "GET", url });

  describe.each(cases)("$file", ({ file, name, claims, valid, invalid }) => {
    const seed = readSeed(file);
    const url = `/schemas/${seed.type}/${seed.version}`;

    it("serves the type metadata document", async () => {
      const response = await get(url);
      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(response.json()).toEqual({
        vct: `http://localhost:8086/schemas/${seed.type}/v1`,
        name,
        description: seed.description,
        display: seed.display,
        status: "active",
        use_case: seed.use_case,
        claims: claimsOf(seed, claims),
        schema: seed.schema,
        updated_at: isoTimestamp,
      });
      // The schema keeps the seed's property order: it is the order of the claims.
      const served = response.json() as { schema: { properties: object } };
      expect(Object.keys(served.schema.properties)).toEqual(Object.keys(seed.schema.properties as object));
    });

    it("serves a schema that compiles with Ajv 2020 and validates credential subjects", async () => {
      const { schema } = (await get(url)).json() as { schema: Record<string, unknown> };
      const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
      ajvFormats.default(ajv);
      const validate = ajv.compile(schema);
      expect(validate(valid), JSON.stringify(validate.errors)).toBe(true);
      expect(validate(invalid)).toBe(false);
    });
  });

  it("lists every built-in seed in the catalogue", async () => {
    const { data } = (await get("/schemas")).json() as { data: Array<{ type: string }> };
    expect(data.map((item) => item.type).sort()).toEqual([
      "driving-licence",
      "employee-badge",
      "eu.europa.ec.eudi.pid.1",
      "org.iso.18013.5.1.mDL",
      "person-identification-data",
      "university-diploma",
    ]);
  });

  it("answers 404 for an unknown type", async () => {
    const response = await get("/schemas/no-such-type/v1");
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 404,
      body: { error: "not_found", message: "Credential type not found" },
    });
  });

  it("answers 404 for an unknown version of a known type", async () => {
    const response = await get("/schemas/university-diploma/v9");
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 404,
      body: { error: "not_found", message: "Credential type version not found" },
    });
  });

  it("answers 400 for a version longer than any version can be", async () => {
    const response = await get(`/schemas/university-diploma/${"v".repeat(51)}`);
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 400,
      body: invalidFieldsBody("version must be at most 50 characters"),
    });
  });
});

describe("GET /v1/schemas/:type/:version (deprecated alias)", () => {
  let registry: TestRegistry;

  beforeAll(async () => {
    registry = await startTestRegistry();
  });
  afterAll(async () => {
    await registry.close();
  });

  const redirectOf = async (url: string) => {
    const response = await registry.app.inject({ method: "GET", url });
    return {
      status: response.statusCode,
      location: response.headers.location,
      deprecation: response.headers.deprecation,
      link: response.headers.link,
      body: response.body,
    };
  };

  it("redirects (302) to the canonical path, marked deprecated", async () => {
    expect(await redirectOf("/v1/schemas/university-diploma/v1")).toEqual({
      status: 302,
      location: "/schemas/university-diploma/v1",
      deprecation: "true",
      link: '</schemas/university-diploma/v1>; rel="successor-version"',
      body: "",
    });
    const target = await registry.app.inject({ method: "GET", url: "/schemas/university-diploma/v1" });
    expect(target.statusCode).toBe(200);
  });

  it("redirects without checking that the type exists", async () => {
    expect(await redirectOf("/v1/schemas/no-such-type/v7")).toEqual({
      status: 302,
      location: "/schemas/no-such-type/v7",
      deprecation: "true",
      link: '</schemas/no-such-type/v7>; rel="successor-version"',
      body: "",
    });
  });

  it("keeps path segments URL-encoded in the Location", async () => {
    expect(await redirectOf("/v1/schemas/a%20b/v%3F1")).toMatchObject({
      status: 302,
      location: "/schemas/a%20b/v%3F1",
    });
  });

  it("refuses an empty segment with a 400 instead of redirecting to a path without a version", async () => {
    for (const url of ["/v1/schemas/x/", "/v1/schemas//v1"]) {
      const result = await redirectOf(url);
      expect(result.status, url).toBe(400);
      expect(result.location, url).toBeUndefined();
    }
  });
});
