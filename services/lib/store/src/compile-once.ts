import {
  type Compilable,
  type CompiledQuery,
  createQueryId,
  type DeleteResult,
  type InsertResult,
  type Kysely,
  type QueryResult,
  type UpdateResult,
} from "kysely";

/** The kinds of argument a statement compiled once takes, and the value each is at execution. */
interface ArgumentTypes {
  string: string;
  "string | null": string | null;
  number: number;
  "number | null": number | null;
  Date: Date;
  "Date | null": Date | null;
  "number[]": number[];
}

export type ArgumentKind = keyof ArgumentTypes;

/** The kind an argument of type `T` is declared with (a union of string literals is a string). */
type KindOf<T> = [T] extends [string]
  ? "string"
  : [T] extends [string | null]
    ? "string | null"
    : [T] extends [number]
      ? "number"
      : [T] extends [number | null]
        ? "number | null"
        : [T] extends [Date]
          ? "Date"
          : [T] extends [Date | null]
            ? "Date | null"
            : [T] extends [number[]]
              ? "number[]"
              : never;

/** The kind of each argument of `A`, as `compileOnce` is told them. */
export type ArgumentKinds<A> = { [N in keyof A]-?: KindOf<A[N]> };
/** The arguments a statement declared with these kinds takes. */
export type ArgumentsOf<K extends Record<string, ArgumentKind>> = { [N in keyof K]: ArgumentTypes[K[N]] };

/** The rows of a statement; an INSERT, UPDATE or DELETE without RETURNING has none (see `numAffectedRows`). */
export type RowOf<O> = O extends InsertResult | UpdateResult | DeleteResult ? never : O;

type OutputOf<B> = B extends Compilable<infer O> ? O : never;

export interface CompiledOnce<A, B extends Compilable<unknown>, O = OutputOf<B>> {
  /** The SQL text: the same for every execution. */
  readonly sql: string;
  /** Runs the compiled statement with these arguments (plugins still transform the result). */
  execute(args: A): Promise<QueryResult<RowOf<O>>>;
  /** The first row, if any. */
  takeFirst(args: A): Promise<RowOf<O> | undefined>;
  /** The uncompiled query for the same arguments (built and compiled on every call, as kysely does). */
  builder(args: A): B;
}

/** Mixed case, so a case change of an argument at build time is caught as well. */
const TOKEN = "AtTeStO-aRgUmEnT";
/** Number sentinels lie beyond the constants a statement may hold (32-bit integers), and so does arithmetic on them. */
const NUMBER_SENTINEL_BASE = 2 ** 52;
const MAX_NUMBER_CONSTANT = 2 ** 31;

function sentinelOf(kind: ArgumentKind, index: number, name: string): unknown {
  switch (kind) {
    case "string":
    case "string | null":
      return `${TOKEN}:${index}:${name}`;
    case "number":
    case "number | null":
      return NUMBER_SENTINEL_BASE + index * 1024;
    case "Date":
    case "Date | null":
      return new Date(Date.UTC(2999, 0, 1) + index); // compared by identity
    case "number[]":
      return [NUMBER_SENTINEL_BASE + index * 1024]; // compared by identity
  }
}

const carriesToken = (value: string) => value.toLowerCase().includes(TOKEN.toLowerCase());

/** Why a constant parameter (one that is no argument) cannot be kept, if it cannot. */
function refusalOf(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (typeof value === "string") return carriesToken(value) ? "an argument transformed at build time" : undefined;
  if (typeof value === "number" && Number.isInteger(value) && Math.abs(value) < MAX_NUMBER_CONSTANT) return undefined;
  return `a constant ${value instanceof Date ? "Date" : Array.isArray(value) ? "array" : typeof value} (derived from an argument? pass it as one)`;
}

/**
 * A statement built and compiled (schema transform included) once, then executed many times with
 * other arguments: kysely otherwise builds, transforms and compiles every query on every call.
 *
 * `build` is called once with a placeholder (sentinel) per argument; each compiled parameter that
 * is a sentinel is then filled from the arguments at execution, every other one is kept as is.
 * `build` must therefore pass arguments through untouched, with no control flow on them: a
 * sentinel transformed (a string changed, arithmetic on a number, a new Date or array) or missing
 * from the parameters, a constant other than a string, null or a 32-bit integer, or a sentinel in
 * the SQL text makes this throw at once (when the store is created), so a mistake fails in the
 * store's tests. What it cannot see is a branch on an argument's value. A statement
 * whose shape varies (a number of rows) needs one compiled statement per shape, or `builder`.
 */
export function compileOnce<
  DB,
  K extends Record<string, ArgumentKind>,
  B extends Compilable<unknown>,
  A extends ArgumentsOf<K> = ArgumentsOf<K>,
>(db: Kysely<DB>, kinds: K, build: (db: Kysely<DB>, args: A) => B): CompiledOnce<A, B> {
  const names = Object.keys(kinds) as Array<keyof K & keyof A & string>;
  const sentinels = new Map<unknown, keyof K & keyof A & string>();
  const placeholders = {} as Record<string, unknown>;
  names.forEach((name, index) => {
    const sentinel = sentinelOf(kinds[name] as ArgumentKind, index, name);
    sentinels.set(sentinel, name);
    placeholders[name] = sentinel;
  });
  const compiled = build(db, placeholders as A).compile();
  const refuse = (why: string): never => {
    throw new Error(`compileOnce: ${why} in: ${compiled.sql}`);
  };
  if (carriesToken(compiled.sql)) refuse("an argument inlined into the SQL text");
  const argumentAt: Array<(keyof K & keyof A & string) | undefined> = [];
  const constants: unknown[] = [];
  const used = new Set<string>();
  compiled.parameters.forEach((value, index) => {
    const name = sentinels.get(value);
    argumentAt.push(name);
    constants.push(name === undefined ? value : undefined);
    if (name !== undefined) used.add(name);
    else {
      const refusal = refusalOf(value);
      if (refusal !== undefined) refuse(`parameter $${index + 1} is ${refusal}`);
    }
  });
  for (const name of names)
    if (!used.has(name)) refuse(`argument "${name}" is missing from the parameters (transformed?)`);

  const execute = (args: A) => {
    const parameters = argumentAt.map((name, index) => (name === undefined ? constants[index] : args[name]));
    const query: CompiledQuery<RowOf<OutputOf<B>>> = {
      sql: compiled.sql,
      query: compiled.query,
      queryId: createQueryId(),
      parameters,
    };
    return db.executeQuery(query);
  };
  return {
    sql: compiled.sql,
    execute,
    async takeFirst(args) {
      return (await execute(args)).rows[0];
    },
    builder: (args) => build(db, args),
  };
}
