import { applyManifests, type ControlPlaneOptions, deleteManifests, type ResourceOutcome } from "../control-plane.js";
import { readManifests } from "../manifests/read-manifests.js";
import { validateManifests } from "../manifests/validate-manifest.js";
import type { CommandIo } from "./io.js";

/** `tenant/acme created`, with the Ready condition when the resource is not Ready. */
export function describeOutcome(outcome: ResourceOutcome): string {
  const line = `${outcome.kind.toLowerCase()}/${outcome.name} ${outcome.action}`;
  if (outcome.kind === "Secret" || outcome.action === "deleted" || outcome.action === "not found") return line;
  if (outcome.ready?.status === "True") return line;
  const reason = outcome.ready ? `${outcome.ready.reason}: ${outcome.ready.message}` : "not reconciled";
  return `${line} (not ready: ${reason})`;
}

const failed = (outcome: ResourceOutcome) =>
  outcome.action === "deleting" ||
  (outcome.kind !== "Secret" &&
    outcome.action !== "deleted" &&
    outcome.action !== "not found" &&
    outcome.ready?.status !== "True");

/** `attesto apply -f`: exit 0 when every resource is Ready, 1 otherwise. */
export async function runApply(paths: string[], options: ControlPlaneOptions, io: CommandIo): Promise<number> {
  const manifests = validateManifests(readManifests(paths));
  const outcomes = await applyManifests(manifests, options);
  for (const outcome of outcomes) io.out(describeOutcome(outcome));
  return outcomes.some(failed) ? 1 : 0;
}

/** `attesto delete -f`: exit 0 when every resource is gone, 1 when one is still being deleted. */
export async function runDelete(paths: string[], options: ControlPlaneOptions, io: CommandIo): Promise<number> {
  const manifests = validateManifests(readManifests(paths));
  // Dependents first, so that a Tenant's finalizer finds its Issuers and VerifierPolicies gone.
  const outcomes = await deleteManifests([...manifests].reverse(), options);
  for (const outcome of outcomes.reverse()) io.out(describeOutcome(outcome));
  return outcomes.some(failed) ? 1 : 0;
}
