/** A disclosure frame of @sd-jwt/core: `_sd` lists the disclosable keys (or indices) of a level. */
export type DisclosureFrame = { _sd?: Array<string | number>; [key: string]: unknown };

type Frame = DisclosureFrame;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function frameOfArray(items: unknown[]): Frame | undefined {
  const frame: Frame = {};
  items.forEach((item, index) => {
    const inner = frameOf(item);
    if (inner) frame[index] = inner;
  });
  return Object.keys(frame).length > 0 ? frame : undefined;
}

function frameOf(value: unknown): Frame | undefined {
  if (Array.isArray(value)) return frameOfArray(value);
  if (!isObject(value)) return undefined;
  const frame: Frame = { _sd: Object.keys(value) };
  for (const [key, inner] of Object.entries(value)) {
    const innerFrame = frameOf(inner);
    if (innerFrame) frame[key] = innerFrame;
  }
  return frame;
}

/**
 * Every claim selectively disclosable: each property of the claims object, and recursively each
 * property of nested objects (also of objects inside arrays), gets its own disclosure. Array
 * elements themselves are disclosed with their array.
 */
export function createDisclosureFrame(claims: Record<string, unknown>): DisclosureFrame {
  return frameOf(claims) ?? {};
}
