import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import type { StoredObject } from "./fake-kube-apiserver.js";

export const examplesDir = fileURLToPath(new URL("../../../operator/examples/", import.meta.url));

/** The documents of an example YAML file (operator/examples). */
export function readExample(file: string): StoredObject[] {
  return parseAllDocuments(readFileSync(`${examplesDir}${file}`, "utf8")).map((doc) => doc.toJS() as StoredObject);
}

/** What `kubectl apply` stores for a Secret written with stringData. */
export function toStoredSecret(secret: StoredObject): StoredObject {
  const stringData = (secret.stringData ?? {}) as Record<string, string>;
  const data = Object.fromEntries(
    Object.entries(stringData).map(([key, value]) => [key, Buffer.from(value).toString("base64")]),
  );
  const { stringData: _ignored, ...rest } = secret;
  return { ...rest, data: { ...((secret.data as object) ?? {}), ...data } };
}
