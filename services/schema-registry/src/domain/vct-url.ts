/** Identifies one credential type version. */
export interface TypeVersion {
  type: string;
  version: string;
}

const schemasBase = (registryUrl: string) => `${registryUrl}/schemas/`;

/** The canonical vct URL of a type: `<registry public URL>/schemas/<type>/<version>`. */
export function createVctUrl(registryUrl: string, { type, version }: TypeVersion): string {
  return `${schemasBase(registryUrl)}${encodeURIComponent(type)}/${encodeURIComponent(version)}`;
}

/** The type and version a vct URL of this registry names; undefined for any other URL. */
export function parseVctUrl(registryUrl: string, vct: string): TypeVersion | undefined {
  const base = schemasBase(registryUrl);
  if (!vct.startsWith(base)) return undefined;
  const segments = vct.slice(base.length).split("/");
  if (segments.length !== 2 || segments.some((segment) => segment === "")) return undefined;
  try {
    const [type, version] = segments.map(decodeURIComponent) as [string, string];
    return { type, version };
  } catch {
    return undefined;
  }
}
