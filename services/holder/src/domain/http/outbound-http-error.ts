/** A request to a third party that did not get an HTTP answer; the message is safe to show. */
export class OutboundHttpError extends Error {
  override name = "OutboundHttpError";
}
