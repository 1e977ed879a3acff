import { describe, expect, it } from "vitest";
import { fieldErrorsOf } from "../src/http/validation.js";

describe("fieldErrorsOf: one field error per failing field, the field named once", () => {
  it("dots the path and drops a leading repetition of the field's name in any spelling", () => {
    expect(
      fieldErrorsOf(
        [
          { instancePath: "/password", message: "password is required" },
          { instancePath: "/selected_credentials/0/credential_id", message: "credential_id must be a UUID" },
          {
            instancePath: "/selected_credentials/1/credential_id",
            message: "selected_credentials[].credential_id must be a UUID",
          },
          {
            instancePath: "/selected_credentials/2/query_id",
            message: "selected_credentials.2.query_id is required",
          },
          { instancePath: "/name", message: "must not be empty" },
          { instancePath: "/name", message: "names must differ" },
        ],
        "body",
      ),
    ).toEqual([
      { field: "password", message: "is required" },
      { field: "selected_credentials.0.credential_id", message: "must be a UUID" },
      { field: "selected_credentials.1.credential_id", message: "must be a UUID" },
      { field: "selected_credentials.2.query_id", message: "is required" },
      { field: "name", message: "must not be empty" },
      { field: "name", message: "names must differ" },
    ]);
  });

  it("names the request part when the whole part fails", () => {
    expect(fieldErrorsOf([{ instancePath: "", message: "must be an object" }], "querystring")).toEqual([
      { field: "query", message: "must be an object" },
    ]);
  });
});
