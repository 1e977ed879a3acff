import { Code, ConnectError } from "@connectrpc/connect";

/** A failed call to another service, as a plain Error whose message names the code (for the attempt log). */
export function rpcFailure(service: string, error: unknown): Error {
  const connectError = ConnectError.from(error);
  const code = Code[connectError.code] ?? "Unknown";
  return new Error(`${service} ${code.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase()}: ${connectError.rawMessage}`, {
    cause: error,
  });
}

export const isNotFound = (error: unknown) => ConnectError.from(error).code === Code.NotFound;
