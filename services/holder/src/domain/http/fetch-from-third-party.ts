import type { AppError } from "@attesto/runtime/errors";
import type { HolderDependencies, OutboundRequest, OutboundResponse } from "../ports.js";
import { ThirdPartyUnreachable } from "../ports.js";

/**
 * One request to an issuer, authorization server or verifier. A URL the policy refuses by its
 * form becomes the caller's 400 (`fail`) saying why (e.g. "must use https"); anything that happens
 * on the network (a refused address, a refused connection, a timeout, an oversized answer) becomes
 * the same generic "<what> could not be fetched": telling them apart would let a caller map the
 * ports and addresses the holder can reach. The guard logs the details.
 */
export async function fetchFromThirdParty(
  deps: Pick<HolderDependencies, "http">,
  url: string,
  what: string,
  fail: (message: string, options?: { cause?: unknown }) => AppError,
  request: OutboundRequest,
): Promise<OutboundResponse> {
  const problem = deps.http.checkUrl(url);
  if (problem) throw fail(`${what} URL ${problem}`);
  try {
    return await deps.http.request(url, request);
  } catch (error) {
    if (error instanceof ThirdPartyUnreachable) throw fail(`${what} could not be fetched`, { cause: error });
    throw error;
  }
}
