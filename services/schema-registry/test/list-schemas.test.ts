import { invalidFieldsBody } from "@attesto/runtime/testing";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SchemaRegistryTables } from "../src/store/tables.js";
import { EXTRA_SEEDS_DIR, startTestRegistry, type TestRegistry } from "./test-registry.js";

/**
 * The catalogue: four built-in types plus a deprecated diploma v0 and a draft loyalty card, with
 * fixed timestamps so orderings are exact. Newest updated first:
 *   pid v1 (06-01), driving-licence v1 (05-01), loyalty-card v1 (05-01), employee-badge v1 (04-01),
 *   university-diploma v0 (03-01), university-diploma v1 (03-01), then the two built-in mdoc types
 *   (2023): eu.europa.ec.eudi.pid.1 v1, org.iso.18013.5.1.mDL v1
 */
const timestamps: Array<[type: string, version: string, createdAt: string, updatedAt: string]> = [
  ["person-identification-data", "v1", "2025-01-01T00:00:00.000Z", "2025-06-01T00:00:00.000Z"],
  ["university-diploma", "v1", "2025-02-01T00:00:00.000Z", "2025-03-01T00:00:00.000Z"],
  ["university-diploma", "v0", "2024-01-01T00:00:00.000Z", "2025-03-01T00:00:00.000Z"],
  ["employee-badge", "v1", "2025-03-01T00:00:00.000Z", "2025-04-01T00:00:00.000Z"],
  ["driving-licence", "v1", "2025-04-01T00:00:00.000Z", "2025-05-01T00:00:00.000Z"],
  ["loyalty-card", "v1", "2025-05-01T00:00:00.000Z", "2025-05-01T00:00:00.000Z"],
  ["eu.europa.ec.eudi.pid.1", "v1", "2023-02-01T00:00:00.000Z", "2023-07-01T00:00:00.000Z"],
  ["org.iso.18013.5.1.mDL", "v1", "2023-01-01T00:00:00.000Z", "2023-06-01T00:00:00.000Z"],
];

const pid = {
  name: "Person Identification Data (PID)",
  type: "person-identification-data",
  format: "dc+sd-jwt",
  version: "v1",
  status: "active",
  updated_at: "2025-06-01T00:00:00.000Z",
};
const drivingLicence = {
  name: "Mobile Driving Licence",
  type: "driving-licence",
  format: "dc+sd-jwt",
  version: "v1",
  status: "active",
  updated_at: "2025-05-01T00:00:00.000Z",
};
const loyaltyCard = {
  name: "Coffee Club 100% Loyalty Card",
  type: "loyalty-card",
  format: "dc+sd-jwt",
  version: "v1",
  status: "draft",
  updated_at: "2025-05-01T00:00:00.000Z",
};
const employeeBadge = {
  name: "Employee Badge",
  type: "employee-badge",
  format: "dc+sd-jwt",
  version: "v1",
  status: "active",
  updated_at: "2025-04-01T00:00:00.000Z",
};
const diplomaV0 = {
  name: "University Diploma (legacy)",
  type: "university-diploma",
  format: "dc+sd-jwt",
  version: "v0",
  status: "deprecated",
  updated_at: "2025-03-01T00:00:00.000Z",
};
const diplomaV1 = {
  name: "University Diploma",
  type: "university-diploma",
  format: "dc+sd-jwt",
  version: "v1",
  status: "active",
  updated_at: "2025-03-01T00:00:00.000Z",
};

const pidMdoc = {
  name: "EU Person Identification Data (mdoc)",
  type: "eu.europa.ec.eudi.pid.1",
  format: "mso_mdoc",
  version: "v1",
  status: "active",
  updated_at: "2023-07-01T00:00:00.000Z",
};
const mdl = {
  name: "Mobile Driving Licence (ISO mDL)",
  type: "org.iso.18013.5.1.mDL",
  format: "mso_mdoc",
  version: "v1",
  status: "active",
  updated_at: "2023-06-01T00:00:00.000Z",
};

describe("GET /schemas", () => {
  let registry: TestRegistry;

  beforeAll(async () => {
    registry = await startTestRegistry();
    await registry.seed(EXTRA_SEEDS_DIR);
    const db = registry.database.db as Kysely<SchemaRegistryTables>;
    for (const [type, version, createdAt, updatedAt] of timestamps) {
      await db
        .updateTable("credential_types")
        .set({ created_at: new Date(createdAt), updated_at: new Date(updatedAt) })
        .where("type", "=", type)
        .where("version", "=", version)
        .executeTakeFirstOrThrow();
    }
  });
  afterAll(async () => {
    await registry.close();
  });

  const list = async (query = "") => {
    const response = await registry.app.inject({ method: "GET", url: `/schemas${query}` });
    return {
      status: response.statusCode,
      body: response.json() as unknown,
      contentType: response.headers["content-type"],
    };
  };

  it("lists everything, newest update first, ties by type then version, with default paging", async () => {
    expect(await list()).toEqual({
      status: 200,
      contentType: "application/json; charset=utf-8",
      body: {
        data: [pid, drivingLicence, loyaltyCard, employeeBadge, diplomaV0, diplomaV1, pidMdoc, mdl],
        meta: { offset: 0, limit: 20, total: 8 },
      },
    });
  });

  it("sorts by created_at when asked", async () => {
    expect(await list("?sort_by=created_at")).toMatchObject({
      status: 200,
      body: {
        data: [loyaltyCard, drivingLicence, employeeBadge, diplomaV1, pid, diplomaV0, pidMdoc, mdl],
        meta: { offset: 0, limit: 20, total: 8 },
      },
    });
  });

  it("sorts by updated_at explicitly", async () => {
    expect((await list("?sort_by=updated_at")).body).toEqual({
      data: [pid, drivingLicence, loyaltyCard, employeeBadge, diplomaV0, diplomaV1, pidMdoc, mdl],
      meta: { offset: 0, limit: 20, total: 8 },
    });
  });

  it("pages with offset and limit; total counts every match", async () => {
    expect(await list("?offset=1&limit=2")).toMatchObject({
      status: 200,
      body: { data: [drivingLicence, loyaltyCard], meta: { offset: 1, limit: 2, total: 8 } },
    });
    expect((await list("?offset=4&limit=100")).body).toEqual({
      data: [diplomaV0, diplomaV1, pidMdoc, mdl],
      meta: { offset: 4, limit: 100, total: 8 },
    });
    expect((await list("?offset=8")).body).toEqual({ data: [], meta: { offset: 8, limit: 20, total: 8 } });
    expect((await list("?offset=1000000&limit=1")).body).toEqual({
      data: [],
      meta: { offset: 1000000, limit: 1, total: 8 },
    });
  });

  it("filters by status", async () => {
    expect((await list("?status=active")).body).toEqual({
      data: [pid, drivingLicence, employeeBadge, diplomaV1, pidMdoc, mdl],
      meta: { offset: 0, limit: 20, total: 6 },
    });
    expect((await list("?status=deprecated")).body).toEqual({
      data: [diplomaV0],
      meta: { offset: 0, limit: 20, total: 1 },
    });
    expect((await list("?status=draft")).body).toEqual({
      data: [loyaltyCard],
      meta: { offset: 0, limit: 20, total: 1 },
    });
  });

  it("filters by format", async () => {
    expect((await list("?format=mso_mdoc")).body).toEqual({
      data: [pidMdoc, mdl],
      meta: { offset: 0, limit: 20, total: 2 },
    });
    expect((await list("?format=dc%2Bsd-jwt&status=active")).body).toEqual({
      data: [pid, drivingLicence, employeeBadge, diplomaV1],
      meta: { offset: 0, limit: 20, total: 4 },
    });
  });

  it("filters by type: partial and case-insensitive", async () => {
    expect((await list("?type=DIPLOMA")).body).toEqual({
      data: [diplomaV0, diplomaV1],
      meta: { offset: 0, limit: 20, total: 2 },
    });
    expect((await list("?type=Licen")).body).toEqual({
      data: [drivingLicence],
      meta: { offset: 0, limit: 20, total: 1 },
    });
  });

  it("filters by name: partial and case-insensitive", async () => {
    expect((await list("?name=university%20diploma")).body).toEqual({
      data: [diplomaV0, diplomaV1],
      meta: { offset: 0, limit: 20, total: 2 },
    });
    expect((await list("?name=badge")).body).toEqual({
      data: [employeeBadge],
      meta: { offset: 0, limit: 20, total: 1 },
    });
  });

  it("matches %, _ and \\ in filters literally", async () => {
    expect((await list("?name=100%25")).body).toEqual({
      data: [loyaltyCard],
      meta: { offset: 0, limit: 20, total: 1 },
    });
    expect((await list("?name=%25")).body).toEqual({ data: [loyaltyCard], meta: { offset: 0, limit: 20, total: 1 } });
    expect((await list("?type=_")).body).toEqual({ data: [], meta: { offset: 0, limit: 20, total: 0 } });
    expect((await list("?name=%5C")).body).toEqual({ data: [], meta: { offset: 0, limit: 20, total: 0 } });
  });

  it("combines filters, sorting and paging", async () => {
    expect((await list("?status=active&type=i&name=I&sort_by=created_at&offset=1&limit=2")).body).toEqual({
      data: [diplomaV1, pid],
      meta: { offset: 1, limit: 2, total: 5 },
    });
  });

  it("ignores unknown query parameters", async () => {
    expect((await list("?page=3")).body).toMatchObject({ meta: { offset: 0, limit: 20, total: 8 } });
  });

  const invalid = (message: string) => ({
    status: 400,
    contentType: "application/json; charset=utf-8",
    body: invalidFieldsBody(message),
  });

  it.each([
    ["?status=retired", "status must be one of active, deprecated, draft"],
    ["?status=", "status must be one of active, deprecated, draft"],
    ["?status=active&status=draft", "status must be given once"],
    ["?type=a&type=b", "type must be given once"],
    ["?name=a&name=b", "name must be given once"],
    [`?type=${"t".repeat(101)}`, "type must be at most 100 characters"],
    [`?name=${"n".repeat(201)}`, "name must be at most 200 characters"],
    ["?format=jwt_vc_json", "format must be one of dc+sd-jwt, mso_mdoc"],
    ["?sort_by=name", "sort_by must be one of updated_at, created_at"],
    ["?sort_by=created_at&sort_by=updated_at", "sort_by must be given once"],
    ["?offset=-1", "offset must be an integer >= 0"],
    ["?offset=1.5", "offset must be an integer >= 0"],
    ["?offset=abc", "offset must be an integer >= 0"],
    ["?offset=", "offset must be an integer >= 0"],
    ["?offset=1e3", "offset must be an integer >= 0"],
    ["?offset=99999999999999999999", "offset must be an integer >= 0"],
    ["?offset=1&offset=2", "offset must be given once"],
    ["?limit=0", "limit must be an integer from 1 to 100"],
    ["?limit=101", "limit must be an integer from 1 to 100"],
    ["?limit=-5", "limit must be an integer from 1 to 100"],
    ["?limit=ten", "limit must be an integer from 1 to 100"],
    ["?limit=2.0", "limit must be an integer from 1 to 100"],
    ["?limit=%20", "limit must be an integer from 1 to 100"],
    ["?limit=5&limit=6", "limit must be given once"],
  ])("refuses %s with 400 naming the parameter", async (query, message) => {
    expect(await list(query)).toEqual(invalid(message));
  });
});
