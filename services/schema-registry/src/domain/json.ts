/** Plain JSON values, as read from seed files and stored in jsonb columns. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };
