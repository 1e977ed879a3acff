import type { DescField, DescMessage } from "@bufbuild/protobuf";

/**
 * A deep copy of a protobuf-es message, made from its schema: what crossing the wire as protobuf
 * binary gives the other side (every declared field: nested messages, lists, maps, oneofs; the
 * unknown fields; nothing the schema does not declare) without encoding and decoding it. Strings,
 * numbers and bigints are immutable and shared; bytes, objects and arrays are copied, so neither
 * side can change what the other holds. In-process calls (in-process-handler.ts) hand each side
 * its own copy of the request and the answer this way.
 */
export function copyMessage<T extends object>(desc: DescMessage, message: T): T {
  const from = message as Record<string, unknown>;
  // Messages with field defaults keep them on a shared prototype of immutable values (protobuf-es).
  const prototype = Object.getPrototypeOf(message);
  const copy: Record<string, unknown> = prototype === Object.prototype ? {} : Object.create(prototype);
  copy.$typeName = desc.typeName;
  for (const member of desc.members) {
    const value = from[member.localName];
    if (value === undefined) continue;
    if (member.kind === "oneof") {
      const selected = value as { case: string | undefined; value?: unknown };
      const field = member.fields.find((candidate) => candidate.localName === selected.case);
      copy[member.localName] = field
        ? { case: selected.case, value: copySingular(field, selected.value) }
        : { case: undefined };
      continue;
    }
    copy[member.localName] = copyField(member, value);
  }
  if (from.$unknown !== undefined) {
    copy.$unknown = (from.$unknown as Array<{ no: number; wireType: number; data: Uint8Array }>).map((field) => ({
      ...field,
      data: field.data.slice(),
    }));
  }
  return copy as T;
}

function copyField(field: DescField, value: unknown): unknown {
  switch (field.fieldKind) {
    case "list":
      return (value as unknown[]).map((item) => copySingular(field, item));
    case "map": {
      const copy: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        setOwn(copy, key, copySingular(field, item));
      }
      return copy;
    }
    default:
      return copySingular(field, value);
  }
}

/** One value of `field` (the field's own, an item of its list, a value of its map). */
function copySingular(field: DescField, value: unknown): unknown {
  if (value instanceof Uint8Array) return value.slice();
  // Scalars, enums and unwrapped wrapper types (google.protobuf.StringValue in a singular field).
  if (typeof value !== "object" || value === null) return value;
  const desc = field.message;
  if (!desc) return value;
  // google.protobuf.Struct is a plain JSON object in fields, except inside google.protobuf.Value.
  if (desc.typeName === "google.protobuf.Struct" && field.parent.typeName !== "google.protobuf.Value") {
    return copyJson(value);
  }
  return copyMessage(desc, value);
}

function copyJson(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) setOwn(copy, key, copyJson(item));
  return copy;
}

/** `target[key] = value`, also for a key named `__proto__` (an own property, as decoding makes it). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
