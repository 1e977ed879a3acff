import type { AppError } from "@attesto/runtime";
import type { HolderDependencies } from "../dependencies.js";
import type { OutboundRequest, OutboundResponse } from "../ports.js";
import { OutboundHttpError } from "./outbound-http-error.js";

/**
 * One request to an issuer, authorization server or verifier; a URL the policy refuses, a network
 * failure or a timeout becomes the caller's 400 (`fail`) naming what was being fetched.
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
    if (error instanceof OutboundHttpError)
      throw fail(`${what} could not be fetched: ${error.message}`, { cause: error });
    throw error;
  }
}
