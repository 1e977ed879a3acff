import { clientInterceptors, type ServiceCredentialSigner, serverInterceptors } from "@attesto/runtime/rpc";
import { testCredentialVerifier } from "@attesto/runtime/testing";
import { Code, ConnectError, type ConnectRouter, createRouterTransport, type Transport } from "@connectrpc/connect";

const silentLogger = {
  error() {},
  warn() {},
  info() {},
  debug() {},
  trace() {},
  fatal() {},
  child() {
    return silentLogger;
  },
  level: "silent",
  silent() {},
} as never;

/** Failures a test injects into an in-memory service: `fail(method, code, times)`. */
export class InjectedFailures {
  private readonly pending: Array<{ method: string; code: Code; remaining: number }> = [];

  fail(method: string, code: Code, times = 1): void {
    this.pending.push({ method, code, remaining: times });
  }

  /** Throws the next failure injected for `method`, if any is left. */
  throwIfDue(method: string): void {
    const failure = this.pending.find((f) => f.method === method && f.remaining > 0);
    if (failure) {
      failure.remaining--;
      throw new ConnectError(`injected ${Code[failure.code]}`, failure.code);
    }
  }
}

/**
 * An in-memory transport to `routes` behind the real service-credential check and caller policy:
 * the client signs with `signer` for `audience`, the server verifies against the public keys of
 * the test identities and refuses callers the policy does not allow.
 */
export function serviceCredentialTransport(
  routes: (router: ConnectRouter) => void,
  options: { audience: string; signer: ServiceCredentialSigner },
): Transport {
  return createRouterTransport(routes, {
    router: {
      interceptors: serverInterceptors(testCredentialVerifier(options.audience), silentLogger),
    },
    transport: { interceptors: clientInterceptors({ signer: options.signer, audience: options.audience, retries: 0 }) },
  });
}
