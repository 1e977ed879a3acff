/** A claim's display label from the issuer metadata (`claims[].path` of object keys, `display[].name`). */
export interface ClaimLabel {
  path: string[];
  label: string;
}

/** One claim the offer carries as the consent page lists it; an object claim holds its parts. */
export interface OfferedClaim {
  label: string;
  parts: OfferedClaim[];
}

/** A key without a label, readable: `family_name` -> `Family name`; other keys (`org.iso.18013.5.1`) as they are. */
function readableKey(key: string): string {
  if (!/^[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*$/.test(key)) return key;
  const words = key.replace(/[_-]/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

interface Node {
  key: string;
  path: string[];
  children: Node[];
}

/**
 * The offered claims (key paths, no values) as a tree of labels: nested claims grouped under their
 * parent, each labelled from the metadata (else its key made readable), in the metadata's order
 * (claims the metadata does not name after, in the offer's order).
 */
export function offeredClaims(paths: string[][], labels: ClaimLabel[]): OfferedClaim[] {
  const labelOf = new Map(labels.map((entry) => [JSON.stringify(entry.path), entry.label]));
  const rank = new Map(labels.map((entry, index) => [JSON.stringify(entry.path), index]));
  const root: Node = { key: "", path: [], children: [] };
  for (const path of paths) {
    let node = root;
    for (const key of path) {
      let child = node.children.find((candidate) => candidate.key === key);
      if (!child) {
        child = { key, path: [...node.path, key], children: [] };
        node.children.push(child);
      }
      node = child;
    }
  }
  const orderOf = (node: Node) => rank.get(JSON.stringify(node.path)) ?? Number.MAX_SAFE_INTEGER;
  const toClaims = (nodes: Node[]): OfferedClaim[] =>
    [...nodes]
      .sort((a, b) => orderOf(a) - orderOf(b))
      .map((node) => ({
        label: labelOf.get(JSON.stringify(node.path)) ?? readableKey(node.key),
        parts: toClaims(node.children),
      }));
  return toClaims(root.children);
}
