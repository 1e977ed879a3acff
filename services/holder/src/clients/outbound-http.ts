import { type OutboundGuard, OutboundRequestError } from "@attesto/runtime/http";
import { type OutboundHttp, ThirdPartyUnreachable } from "../domain/ports.js";

/** The domain's `OutboundHttp` over the runtime's outbound request guard (which logs the details of a failure). */
export function outboundHttpOf(guard: Pick<OutboundGuard, "request" | "checkUrl">): OutboundHttp {
  return {
    checkUrl: (url) => guard.checkUrl(url),
    async request(url, request) {
      try {
        return await guard.request(url, request);
      } catch (error) {
        if (error instanceof OutboundRequestError) throw new ThirdPartyUnreachable(error.message, { cause: error });
        throw error;
      }
    },
  };
}
