import { z } from "zod";

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const txHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const eip155 = z.string().regex(/^eip155:[0-9]+$/, "must be eip155:<chain id> (an EVM anchor)");
const inclusionProof = z.object({
  batch_id: z.string(),
  root: hex64,
  leaf_index: z.number().int().nonnegative(),
  tree_size: z.number().int().positive(),
  path: z.array(hex64),
});

/**
 * An anchored reference on an EVM chain in the shape of a `credential.notarized` event's `data`
 * (scheduler, LEDGER_BACKEND=evm): what every accepted input is read into.
 */
const anchoredReference = z.object({
  reference: z.object({
    chain: eip155,
    object_id: z.string(),
    chain_id: z.number().int().positive(),
    transaction_hash: txHash,
    block_number: z.number().int().nonnegative(),
  }),
  digest: hex64,
  salt: hex64,
  salted_digest: hex64,
  inclusion_proof: inclusionProof,
  evm: z.object({ from: address, to: address }).partial().optional(),
});

/**
 * A credential's `reference` as the holder (`GET /v1/vc/:id`, `block_chain`) and the credential
 * issuer (`GET /v1/credentials/:id`, `chain`) show it once anchored: flat, with the issuer's salt.
 */
const flatReference = z.object({
  chain: z.string().optional(),
  block_chain: z.string().optional(),
  object_id: z.string(),
  state: z.literal("anchored", {
    error: "the reference is not anchored yet (state pending): ask for it again once its batch is anchored",
  }),
  chain_id: z.number().int().positive(),
  transaction_hash: txHash,
  block_number: z.number().int().nonnegative(),
  issuer_salt: hex64.optional(),
  digest: hex64,
  salt: hex64,
  salted_digest: hex64,
  inclusion_proof: inclusionProof,
  from: address.optional(),
  to: address.optional(),
});

/** A reference to check, and the credential it is for when the input carried it. */
export type AnchoredReference = z.infer<typeof anchoredReference> & {
  /** The issuer's salt: digest = SHA-256(issuer_salt || SHA-256(issuer JWT)). */
  issuer_salt?: string;
  /** The credential (SD-JWT VC or base64url mdoc) the reference is for. */
  credential?: string;
};

export class ReferenceFormatError extends Error {
  override name = "ReferenceFormatError";
}

const objectOf = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** A flat reference read into the event shape. */
function fromFlat(flat: z.infer<typeof flatReference>): unknown {
  const chain = (flat.chain ?? flat.block_chain ?? "").toLowerCase();
  return {
    reference: {
      chain,
      object_id: flat.object_id,
      chain_id: flat.chain_id,
      transaction_hash: flat.transaction_hash,
      block_number: flat.block_number,
    },
    digest: flat.digest,
    salt: flat.salt,
    salted_digest: flat.salted_digest,
    inclusion_proof: flat.inclusion_proof,
    ...(flat.from || flat.to ? { evm: { from: flat.from, to: flat.to } } : {}),
  };
}

/** One input read as a reference, or the problems that kept it from being one. */
function readCandidate(candidate: Record<string, unknown>): AnchoredReference | string[] {
  const problems = (error: z.ZodError) =>
    error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
  const nested = objectOf(candidate.reference);
  // The event (or its data): the proof beside a short reference.
  if (nested && candidate.inclusion_proof !== undefined) {
    const parsed = anchoredReference.safeParse(candidate);
    return parsed.success ? parsed.data : problems(parsed.error);
  }
  // A stored credential (holder: raw_credential; `credential` is taken as well), the issuer's
  // credential record, or the reference alone.
  const flat = flatReference.safeParse(nested ?? candidate);
  if (!flat.success) return problems(flat.error);
  const parsed = anchoredReference.safeParse(fromFlat(flat.data));
  if (!parsed.success) return problems(parsed.error);
  const credential = candidate.raw_credential ?? candidate.credential;
  return {
    ...parsed.data,
    ...(flat.data.issuer_salt ? { issuer_salt: flat.data.issuer_salt } : {}),
    ...(typeof credential === "string" ? { credential } : {}),
  };
}

/**
 * The reference in `text` (JSON): a `credential.notarized` event or its `data`; `attesto
 * notarization show`'s output; the holder's stored credential (`GET /v1/vc/:id`, the reference with
 * `raw_credential`); the credential issuer's record (`GET /v1/credentials/:id`); or the reference
 * alone. (A credential response's reference is always pending: issuance does not wait for the chain.)
 */
export function parseAnchoredReference(text: string): AnchoredReference {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ReferenceFormatError("the reference is not JSON");
  }
  const root = objectOf(json);
  const candidates = [root, objectOf(root?.data), objectOf(root?.notarization)];
  let problems: string[] = [];
  for (const candidate of candidates) {
    if (!candidate) continue;
    const read = readCandidate(candidate);
    if (!Array.isArray(read)) return read;
    if (problems.length === 0) problems = read;
  }
  throw new ReferenceFormatError(`not an EVM anchored reference (${problems.slice(0, 5).join("; ")})`);
}
