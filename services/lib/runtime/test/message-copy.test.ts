import * as proto from "@attesto/proto";
import {
  create,
  type DescField,
  type DescMessage,
  fromBinary,
  type JsonObject,
  ScalarType,
  toBinary,
} from "@bufbuild/protobuf";
import { type ReflectMessage, reflect } from "@bufbuild/protobuf/reflect";
import { ListValueSchema, StructSchema, TimestampSchema, ValueSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { copyMessage } from "../src/rpc/message-copy.js";

/**
 * copyMessage (the in-process calls' copy of requests and answers) gives what a protobuf binary
 * round trip gives, for every message of the generated code, and shares nothing mutable.
 */

/** Every message of the generated code, and the well-known types it uses. */
const MESSAGES: DescMessage[] = [
  ...Object.values(proto)
    .flatMap((module) => Object.values(module as Record<string, unknown>))
    .filter((value): value is DescMessage => (value as { kind?: string }).kind === "message"),
  StructSchema,
  ValueSchema,
  ListValueSchema,
  TimestampSchema,
];

const SCALARS: Partial<Record<ScalarType, unknown>> = {
  [ScalarType.DOUBLE]: 1.5,
  [ScalarType.FLOAT]: 2.5,
  [ScalarType.INT64]: -7n,
  [ScalarType.UINT64]: 7n,
  [ScalarType.FIXED64]: 8n,
  [ScalarType.SFIXED64]: -8n,
  [ScalarType.SINT64]: -9n,
  [ScalarType.BOOL]: true,
  [ScalarType.STRING]: "text, ü",
};

function scalar(type: ScalarType, n: number): unknown {
  if (type === ScalarType.BYTES) return new Uint8Array([n, 2, 3]);
  return SCALARS[type] ?? n + 1;
}

/** A message of `desc` with every field set (lists and maps with two items), nested to `depth`. */
function filled(desc: DescMessage, depth = 3): ReflectMessage {
  const message = reflect(desc);
  for (const field of desc.fields) {
    // One field per oneof: the first.
    if (field.oneof && field.oneof.fields[0] !== field) continue;
    const value = (n: number) => singular(field, n, depth);
    if (field.fieldKind === "list") {
      const list = message.get(field);
      for (const n of [1, 2]) {
        const item = value(n);
        if (item !== undefined) list.add(item);
      }
    } else if (field.fieldKind === "map") {
      const map = message.get(field);
      for (const n of [1, 2]) {
        const item = value(n);
        const key = field.mapKey === ScalarType.STRING ? `key${n}` : field.mapKey === ScalarType.BOOL ? n === 1 : n;
        if (item !== undefined) map.set(key, item);
      }
    } else {
      const item = value(1);
      if (item !== undefined) message.set(field, item as never);
    }
  }
  return message;
}

function singular(field: DescField, n: number, depth: number): unknown {
  if (field.message) return depth > 0 ? filled(field.message, depth - 1) : undefined;
  if (field.enum) return field.enum.values[n % field.enum.values.length]?.number ?? 0;
  return scalar(field.scalar as ScalarType, n);
}

/** Every object reachable from `value` (messages, lists, maps, bytes, JSON). */
function objectsOf(value: unknown, into = new Set<object>()): Set<object> {
  if (typeof value !== "object" || value === null || into.has(value)) return into;
  into.add(value);
  if (!(value instanceof Uint8Array)) for (const item of Object.values(value)) objectsOf(item, into);
  return into;
}

describe("copyMessage", () => {
  it.each(MESSAGES.map((desc) => [desc.typeName, desc] as const))(
    "%s: as a binary round trip, nothing shared",
    (_, desc) => {
      const original = filled(desc).message;
      const copy = copyMessage(desc, original);
      expect(copy).toEqual(fromBinary(desc, toBinary(desc, original)));
      const shared = [...objectsOf(copy)].filter((object) => objectsOf(original).has(object));
      expect(shared).toEqual([]);
    },
  );

  it("covers every kind of field the generated code has", () => {
    const kinds = new Set(
      MESSAGES.flatMap((desc) => desc.fields.map((field) => (field.oneof ? "oneof" : field.fieldKind))),
    );
    expect([...kinds].sort()).toEqual(["enum", "list", "map", "message", "oneof", "scalar"]);
  });

  it("copies JSON objects (google.protobuf.Struct) as decoding does; a __proto__ key stays an own key", () => {
    const desc = proto.schemaV1.CredentialTypeSchema;
    const schema = { type: "object", items: [{ a: 1 }, null, "x", { b: [true] }] } as JsonObject;
    const original = create(desc, { type: "pid", schema });
    expect(copyMessage(desc, original)).toEqual(fromBinary(desc, toBinary(desc, original)));
    const hostile = JSON.parse('{"__proto__":{"polluted":true}}') as JsonObject;
    const copied = copyMessage(desc, create(desc, { schema: hostile })).schema as Record<string, unknown>;
    expect(Object.hasOwn(copied, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(copied.polluted).toBeUndefined();
    // Inside google.protobuf.Value a Struct stays a message.
    const value = create(ValueSchema, { kind: { case: "structValue", value: create(StructSchema, { fields: {} }) } });
    expect(copyMessage(ValueSchema, value)).toEqual(fromBinary(ValueSchema, toBinary(ValueSchema, value)));
  });

  it("keeps unknown fields and drops properties the schema does not declare", () => {
    const desc = proto.ledgerV1.ResolveDidResponseSchema;
    const withUnknown = fromBinary(desc, new Uint8Array([0x0a, 0x01, 0x78, 0xa2, 0x06, 0x02, 0x68, 0x69]));
    expect(withUnknown.$unknown).toHaveLength(1);
    const copy = copyMessage(desc, withUnknown);
    expect(copy).toEqual(withUnknown);
    expect(copy.$unknown?.[0]?.data).not.toBe(withUnknown.$unknown?.[0]?.data);
    const extra = Object.assign(create(desc, { didDocumentJson: "{}" }), { secret: "not on the wire" });
    expect(copyMessage(desc, extra)).toEqual(fromBinary(desc, toBinary(desc, extra)));
    expect(copyMessage(desc, extra)).not.toHaveProperty("secret");
  });
});
