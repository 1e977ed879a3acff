import type { CacheInvalidations } from "@attesto/protocol/cache";
import { Code, ConnectError } from "@connectrpc/connect";
import { envPrefixOf } from "./config.js";
import type { FieldError } from "./errors/app-error.js";
import { createServiceCredentialSigner, createServiceCredentialVerifier } from "./rpc/service-credential.js";
import { generateServiceIdentities, SERVICE_IDENTITIES, type ServiceIdentity } from "./rpc/service-identity.js";

/**
 * Service identities for tests (`@attesto/runtime/testing`): one key pair per identity, made once
 * per test process, so that test servers and clients authenticate as the real services do.
 */
export const TEST_SERVICE_IDENTITIES = generateServiceIdentities();

/** A signer speaking as `caller` with its test identity key. */
export const testCredentialSigner = (caller: ServiceIdentity) =>
  createServiceCredentialSigner({ privateKey: TEST_SERVICE_IDENTITIES.privateKeys[caller], caller });

/** A verifier of `audience` that knows every test identity's public key. */
export const testCredentialVerifier = (audience: string) =>
  createServiceCredentialVerifier({ publicKeys: TEST_SERVICE_IDENTITIES.publicKeys, audience });

/** The identity variables of a service's configuration, for its test identity. */
export const testIdentityEnv = (service: ServiceIdentity) => ({
  SERVICE_IDENTITY_KEY: TEST_SERVICE_IDENTITIES.privateKeys[service],
  SERVICE_IDENTITY_PUBLIC_KEYS: TEST_SERVICE_IDENTITIES.publicKeys,
});

/**
 * `<PREFIX>_SERVICE_IDENTITY_KEY` of every test identity, for the all-in-one launcher: its
 * services then speak as the test identities, and a test can call them as any identity.
 */
export const testServiceIdentityEnv = (): Record<string, string> =>
  Object.fromEntries(
    SERVICE_IDENTITIES.map((name) => [
      `${envPrefixOf(name)}_SERVICE_IDENTITY_KEY`,
      TEST_SERVICE_IDENTITIES.privateKeys[name],
    ]),
  );

/**
 * The 400 body of a validation failure with this message (`a is required; b must be a string`):
 * `{error: "invalid_request", message, errors}`, each field error read back from the message.
 */
export function invalidFieldsBody(message: string): { error: string; message: string; errors: FieldError[] } {
  const errors = message.split("; ").map((part) => {
    const space = part.indexOf(" ");
    return { field: part.slice(0, space), message: part.slice(space + 1) };
  });
  return { error: "invalid_request", message, errors };
}

/** How an internal call failed, as `{code, message}` (the Connect code's name, the raw message); throws when it succeeded. */
export async function rpcFailureOf(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call;
  } catch (error) {
    const connectError = ConnectError.from(error);
    return { code: Code[connectError.code], message: connectError.rawMessage };
  }
  throw new Error("expected the call to fail");
}

/**
 * Cache invalidations as a test drives them (for `createCoherentCache` users): `change(topic)` is a
 * commit the next barrier has seen; `setCoherent(false)` is a lost listening connection.
 */
export function drivenCacheInvalidations() {
  const subscribers = new Map<string, Array<() => void>>();
  const pending: string[] = [];
  let coherent = true;
  const invalidations: CacheInvalidations = {
    async barrier() {
      for (const topic of pending.splice(0)) for (const callback of subscribers.get(topic) ?? []) callback();
      return coherent;
    },
    subscribe(topic, onChange) {
      subscribers.set(topic, [...(subscribers.get(topic) ?? []), onChange]);
      return () => undefined;
    },
  };
  return {
    invalidations,
    change: (topic: string) => pending.push(topic),
    setCoherent: (value: boolean) => {
      coherent = value;
    },
  };
}
