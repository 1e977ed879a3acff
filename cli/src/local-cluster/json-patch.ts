import type { JsonPatchOperation } from "@attesto/operator/library";

/** Thrown when a `test` operation fails: the caller's view is stale. */
export class JsonPatchTestFailed extends Error {
  override name = "JsonPatchTestFailed";
}

const unescapeToken = (token: string) => token.replace(/~1/g, "/").replace(/~0/g, "~");

/**
 * Applies RFC 6902 operations (test, add, remove, replace) to a copy of `document`; what the
 * controller sends for finalizers. Throws JsonPatchTestFailed on a failed test, Error on a bad path.
 */
export function applyJsonPatch<T extends object>(document: T, operations: readonly JsonPatchOperation[]): T {
  const result = structuredClone(document) as Record<string, unknown>;
  for (const operation of operations) {
    const tokens = operation.path.split("/").slice(1).map(unescapeToken);
    const last = tokens.pop();
    if (last === undefined) throw new Error(`bad JSON pointer ${operation.path}`);
    let parent: unknown = result;
    for (const token of tokens) {
      parent = (parent as Record<string, unknown> | undefined)?.[token];
      if (typeof parent !== "object" || parent === null) throw new Error(`path ${operation.path} does not exist`);
    }
    const container = parent as Record<string, unknown> | unknown[];
    if (operation.op === "test") {
      const actual = (container as Record<string, unknown>)[last];
      if (JSON.stringify(actual) !== JSON.stringify(operation.value)) {
        throw new JsonPatchTestFailed(`test failed at ${operation.path}`);
      }
    } else if (Array.isArray(container)) {
      const index = last === "-" ? container.length : Number(last);
      if (!Number.isInteger(index) || index < 0 || index > container.length) {
        throw new Error(`bad array index in ${operation.path}`);
      }
      if (operation.op === "add") container.splice(index, 0, structuredClone(operation.value));
      else if (operation.op === "replace") container[index] = structuredClone(operation.value);
      else container.splice(index, 1);
    } else if (operation.op === "remove") {
      delete container[last];
    } else {
      container[last] = structuredClone(operation.value);
    }
  }
  return result as T;
}
