import pg from "pg";
import { describe, expect, it } from "vitest";
import { type PgResult, type RowShape, reuseRowShape } from "../src/row-shapes.js";

const INT4 = 23;
const TEXT = 25;
const column = (name: string, dataTypeID: number) => ({ name, dataTypeID, format: "text" });

/** A pg Result as a named query's run makes it, with the shapes of its connection. */
function resultOf(shapes: Map<string, RowShape>, name: string): PgResult & { parseRow(row: unknown[]): unknown } {
  // As pg.Query makes it: no row mode, the pg-types parsers.
  const result = new pg.Result(undefined as unknown as string, pg.types) as unknown as PgResult & {
    parseRow(row: unknown[]): unknown;
  };
  reuseRowShape(result, shapes, name);
  return result;
}

describe("row shapes of named statements", () => {
  it("a run with the columns of the one before takes its parsers and empty row, and keeps its own fields", () => {
    const shapes = new Map<string, RowShape>();
    const first = resultOf(shapes, "a_1");
    first.addFields([column("id", INT4), column("label", TEXT)]);
    const fields = [column("id", INT4), column("label", TEXT)];
    const second = resultOf(shapes, "a_1");
    second.addFields(fields);
    expect(second._parsers).toBe(first._parsers);
    expect(second._prebuiltEmptyResultObject).toBe(first._prebuiltEmptyResultObject);
    expect(second.fields).toBe(fields);
    expect(second.parseRow(["7", "seven"])).toEqual({ id: 7, label: "seven" });
    expect(first._prebuiltEmptyResultObject).toEqual({ id: null, label: null });
  });

  it("other columns (a type, a name, their number) or another statement build their own", () => {
    const shapes = new Map<string, RowShape>();
    resultOf(shapes, "a_1").addFields([column("id", INT4), column("label", TEXT)]);
    const retyped = resultOf(shapes, "a_1");
    retyped.addFields([column("id", TEXT), column("label", TEXT)]);
    expect(retyped.parseRow(["7", "seven"])).toEqual({ id: "7", label: "seven" });
    const renamed = resultOf(shapes, "a_1");
    renamed.addFields([column("key", TEXT), column("label", TEXT)]);
    expect(renamed.parseRow(["7", "seven"])).toEqual({ key: "7", label: "seven" });
    const fewer = resultOf(shapes, "a_1");
    fewer.addFields([column("key", TEXT)]);
    expect(fewer.parseRow(["7"])).toEqual({ key: "7" });
    const other = resultOf(shapes, "a_2");
    other.addFields([column("id", INT4)]);
    expect(other.parseRow(["8"])).toEqual({ id: 8 });
  });
});
