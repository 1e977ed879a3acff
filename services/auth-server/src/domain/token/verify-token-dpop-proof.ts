import {
  type DpopNonces,
  DpopProofError,
  type DpopReplayStore,
  type VerifiedDpopProof,
  verifyDpopProof,
} from "@attesto/protocol";
import { dpopErrorResponse } from "@attesto/runtime/errors";

export interface TokenDpopDeps {
  /** Public URL of the token endpoint: the `htu` proofs must name. */
  tokenEndpointUrl: string;
  nonces: DpopNonces;
  /** Whether proofs must carry a server nonce. */
  nonceRequired: boolean;
  replay: DpopReplayStore;
  now: () => Date;
  /** Observes refused proofs (metrics). */
  onFailure?: (error: DpopProofError) => void;
}

/**
 * Step 2: the DPoP proof, when the request carries a `DPoP` header (the token is then DPoP-bound).
 * It runs before the grant is redeemed, so a client answered `use_dpop_nonce` can retry with the
 * same, still unused, code. The PAR endpoint runs the same check with its own URL as `htu`.
 */
export async function verifyTokenDpopProof(
  header: string | string[] | undefined,
  deps: TokenDpopDeps,
  endpointUrl: string = deps.tokenEndpointUrl,
): Promise<VerifiedDpopProof | undefined> {
  if (header === undefined) return undefined;
  try {
    return await verifyDpopProof({
      header,
      method: "POST",
      url: endpointUrl,
      nonces: deps.nonceRequired ? deps.nonces : undefined,
      replay: deps.replay,
      now: deps.now(),
    });
  } catch (error) {
    if (!(error instanceof DpopProofError)) throw error;
    deps.onFailure?.(error);
    throw dpopErrorResponse(error, { server: "authorization-server", nonce: () => deps.nonces.issue() });
  }
}
