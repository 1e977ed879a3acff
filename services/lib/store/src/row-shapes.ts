import pg from "pg";

/** One column of a RowDescription, as pg's parser hands it over. */
export interface FieldDescription {
  name: string;
  dataTypeID: number;
  format: string;
}

/** What pg's `Result.addFields` makes of a RowDescription: its value parsers and empty row (internals of pg 8). */
export interface RowShape {
  fields: FieldDescription[];
  _parsers: unknown[];
  _prebuiltEmptyResultObject: object;
}

export interface PgResult extends RowShape {
  addFields(fields: FieldDescription[]): void;
}

/** Same columns, in the same order, of the same types and format: rows parse the same way. */
function sameColumns(a: FieldDescription[], b: FieldDescription[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.name !== y.name || x.dataTypeID !== y.dataTypeID || x.format !== y.format) return false;
  }
  return true;
}

/**
 * pg describes every run of a named statement (Describe before Execute), and its `Result.addFields`
 * rebuilds the row parsers and the empty row object from the RowDescription each time: a
 * dictionary-mode object filled and copied per statement (~1.2 % of the all-in-one's main thread per
 * issuance). A statement's columns only change when it is prepared again, and the check below
 * compares them anyway: when this RowDescription has the columns of the one before on this
 * connection, the result takes the parsers and empty row built then (both are only read), and its
 * own `fields`; otherwise pg builds them and they are kept for the next run.
 */
export function reuseRowShape(result: PgResult, shapes: Map<string, RowShape>, name: string): void {
  result.addFields = (fields) => {
    const shape = shapes.get(name);
    if (shape !== undefined && sameColumns(shape.fields, fields)) {
      result.fields = fields;
      result._parsers = shape._parsers;
      result._prebuiltEmptyResultObject = shape._prebuiltEmptyResultObject;
      return;
    }
    (pg.Result.prototype as unknown as PgResult).addFields.call(result, fields);
    shapes.set(name, {
      fields,
      _parsers: result._parsers,
      _prebuiltEmptyResultObject: result._prebuiltEmptyResultObject,
    });
  };
}
