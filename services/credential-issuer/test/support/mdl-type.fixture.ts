/** An mDL credential type as the schema registry double serves it (trimmed ISO 18013-5 mDL seed). */
export const MDL_VCT = "https://schemas.example/schemas/org.iso.18013.5.1.mDL/v1";
export const MDL_DOCTYPE = "org.iso.18013.5.1.mDL";
export const MDL_NAMESPACE = "org.iso.18013.5.1";

export const mdlSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    [MDL_NAMESPACE]: {
      type: "object",
      properties: {
        family_name: { type: "string" },
        given_name: { type: "string" },
        birth_date: { type: "string", format: "date" },
        issuing_country: { type: "string", pattern: "^[A-Z]{2}$" },
        portrait: { type: "string", contentEncoding: "base64url", pattern: "^[A-Za-z0-9_-]+$" },
        age_over_18: { type: "boolean" },
        driving_privileges: {
          type: "array",
          items: {
            type: "object",
            properties: { vehicle_category_code: { type: "string" }, issue_date: { type: "string", format: "date" } },
            required: ["vehicle_category_code"],
          },
        },
      },
      required: ["family_name", "given_name", "birth_date"],
      additionalProperties: false,
    },
  },
  required: [MDL_NAMESPACE],
  additionalProperties: false,
};

export const mdlMetadata = {
  vct: MDL_VCT,
  name: "Mobile Driving Licence (ISO mDL)",
  description: "ISO/IEC 18013-5 mDL",
  display: [{ locale: "en-US", name: "Mobile Driving Licence" }],
  status: "active",
  use_case: ["driving_entitlement"],
  claims: Object.keys(mdlSchema.properties[MDL_NAMESPACE].properties).map((element) => ({
    path: [MDL_NAMESPACE, element],
    mandatory: ["family_name", "given_name", "birth_date"].includes(element),
  })),
  schema: mdlSchema,
  format: "mso_mdoc",
  doctype: MDL_DOCTYPE,
};

export const mdlClaims = {
  [MDL_NAMESPACE]: {
    family_name: "Mustermann",
    given_name: "Erika",
    birth_date: "1990-04-01",
    issuing_country: "UT",
    portrait: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]).toString("base64url"),
    age_over_18: true,
    driving_privileges: [{ vehicle_category_code: "B", issue_date: "2010-05-01" }],
  },
};

/** Adds the mDL type to the doubles and a configuration for it to tenant acme (X.509 chain with C=UT). */
export async function addMdlType(
  doubles: {
    schemaRegistry: { types: Map<string, unknown> };
    trustRegistry: {
      tenants: Map<string, { configurations: Array<{ id: string; type: string; version: string; vct: string }> }>;
      chains: Map<string, unknown>;
    };
  },
  createChain: (tenant: string, options: { country: string }) => Promise<unknown>,
) {
  doubles.schemaRegistry.types.set(MDL_VCT, {
    name: "Mobile Driving Licence (ISO mDL)",
    schema: mdlSchema,
    metadata: mdlMetadata,
    format: "mso_mdoc",
    doctype: MDL_DOCTYPE,
  });
  doubles.trustRegistry.tenants
    .get("acme")!
    .configurations.push({ id: MDL_DOCTYPE, type: MDL_DOCTYPE, version: "v1", vct: MDL_VCT });
  doubles.trustRegistry.chains.set("acme", await createChain("acme", { country: "UT" }));
}
