import { keysV1 } from "@attesto/proto";
import { invalidFields, unavailable } from "@attesto/runtime/errors";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import type { VerifierKeys } from "../domain/ports.js";

/**
 * VerifierKeys over KeyCustodyService. A FAILED_PRECONDITION (no imported verifier certificate, or
 * it expired) is the caller's to fix: 400 naming `client_id_prefix`; anything else is 503.
 */
export function createVerifierKeys(keys: Client<typeof keysV1.KeyCustodyService>): VerifierKeys {
  return {
    async certificate(tenant, source, host) {
      try {
        const response = await keys.getVerifierCertificate({
          tenant,
          host,
          source:
            source === "imported"
              ? keysV1.VerifierCertificateSource.IMPORTED
              : keysV1.VerifierCertificateSource.PLATFORM,
        });
        return { keyId: response.keyId, x5c: response.x5c };
      } catch (error) {
        if (error instanceof ConnectError && error.code === Code.FailedPrecondition) {
          throw invalidFields([{ field: "client_id_prefix", message: `cannot be used: ${error.rawMessage}` }]);
        }
        throw unavailable("The verifier's key custody is unavailable", { cause: error });
      }
    },
    async sign(tenant, keyId, signingInput) {
      try {
        const response = await keys.sign({ tenant, keyId, signingInput });
        if (response.alg !== keysV1.KeyAlgorithm.ES256) throw new Error("the verifier key is not ES256");
        return response.signature;
      } catch (error) {
        throw unavailable("The verifier's key custody is unavailable", { cause: error });
      }
    },
  };
}
