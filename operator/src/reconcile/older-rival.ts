import type { CustomResource } from "../resources.js";

/** Creation time, then namespace/name: the order in which rival resources win. */
const rankOf = (resource: CustomResource) =>
  `${resource.metadata.creationTimestamp ?? ""}\u0000${resource.metadata.namespace}/${resource.metadata.name}`;

/**
 * Of resources claiming the same thing, the oldest wins: an older one among `candidates` (not
 * `resource` itself, not being deleted) for which `claimsSame` holds, if any.
 */
export function olderRival(
  resource: CustomResource,
  candidates: readonly CustomResource[],
  claimsSame: (other: CustomResource) => boolean,
): CustomResource | undefined {
  const rank = rankOf(resource);
  return candidates.find(
    (other) =>
      other.metadata.uid !== resource.metadata.uid &&
      !other.metadata.deletionTimestamp &&
      claimsSame(other) &&
      rankOf(other) < rank,
  );
}
