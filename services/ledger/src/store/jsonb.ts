import { sql } from "kysely";

/** A jsonb parameter: JSON text cast explicitly (pg would send a JS array as a PostgreSQL array). */
export const jsonb = (value: unknown) => sql<never>`${JSON.stringify(value)}::jsonb`;
