import { clientAuthenticationClientAttestationJwt, type Jwk, type JwtSignerJwk } from "@openid4vc/oauth2";
import { createDemoClientAttestation } from "../../../services/auth-server/src/demo-wallet-provider.js";
import { type WalletKey, walletKey } from "../../interop/support/keys.js";
import { InteropWallet } from "../../interop/support/wallet.js";

/**
 * A wallet instance as the OpenWallet Foundation client (@openid4vc/openid4vci `Openid4vciClient`)
 * runs it (the interop suites' InteropWallet: node:crypto keys, jose signatures, real HTTP, every
 * request logged in `requests`), with client authentication by a client attestation
 * (`attest_jwt_client_auth`) from the platform's demo wallet provider, bound to the instance key;
 * the library signs a fresh PoP for every request to the authorization server.
 */
export class AttestedWallet extends InteropWallet {
  private constructor(
    readonly clientId: string,
    /** The key the client attestation binds (`cnf.jwk`); signs the attestation PoPs. */
    readonly instanceKey: WalletKey,
    clientAttestationJwt: string,
  ) {
    super({
      keys: [instanceKey],
      clientAuthentication: (callbacks) =>
        clientAuthenticationClientAttestationJwt({ clientAttestationJwt, callbacks }),
    });
  }

  /** A wallet instance with a fresh instance key and a demo wallet provider attestation for `clientId`. */
  static async create(clientId: string): Promise<AttestedWallet> {
    const instanceKey = walletKey("ES256");
    const attestation = await createDemoClientAttestation({
      clientId,
      instancePublicJwk: instanceKey.publicJwk as never,
    });
    return new AttestedWallet(clientId, instanceKey, attestation);
  }

  /** A new key the wallet may sign with (DPoP, key proofs); P-256 unless told. */
  override key(alg: "ES256" | "EdDSA" = "ES256"): WalletKey {
    return super.key(alg);
  }

  /** The library's signer for a key of this wallet. */
  static signerOf(key: WalletKey): JwtSignerJwk {
    return { method: "jwk", alg: key.alg, publicJwk: key.publicJwk as Jwk };
  }
}
