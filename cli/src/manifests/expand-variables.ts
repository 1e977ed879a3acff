import { ManifestError } from "./manifest-error.js";

/** `${NAME}` or `${NAME:-default}` (the default may be empty; it cannot contain `}`). */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${NAME}` and `${NAME:-default}` in every string value of a parsed manifest with the
 * environment's value (an empty or unset variable takes the default), so one file serves any
 * PORT_OFFSET or host. Only string scalars are touched, after parsing: a value cannot change the
 * document's structure. A variable that is unset and has no default is an error naming it and the
 * document.
 */
export function expandVariables(value: unknown, env: Record<string, string | undefined>, source: string): unknown {
  if (typeof value === "string") {
    return value.replace(REFERENCE, (_, name: string, fallback: string | undefined) => {
      const set = env[name];
      if (set !== undefined && set !== "") return set;
      if (fallback !== undefined) return fallback;
      throw new ManifestError(`${source}: \${${name}} is not set (give it a default with \${${name}:-value})`);
    });
  }
  if (Array.isArray(value)) return value.map((item) => expandVariables(item, env, source));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expandVariables(item, env, source)]));
  }
  return value;
}
