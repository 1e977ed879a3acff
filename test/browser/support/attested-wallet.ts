import { createHash, randomBytes } from "node:crypto";
import {
  type CallbackContext,
  clientAuthenticationClientAttestationJwt,
  type Jwk,
  type JwtSignerJwk,
  setGlobalConfig,
} from "@openid4vc/oauth2";
import { Openid4vciClient } from "@openid4vc/openid4vci";
import { SignJWT } from "jose";
import { createDemoClientAttestation } from "../../../services/auth-server/src/demo-wallet-provider.js";
import { type WalletKey, walletKey } from "../../interop/support/keys.js";

// The platform runs on http://localhost in tests.
setGlobalConfig({ allowInsecureUrls: true });

/** One HTTP exchange the wallet library made: method, URL path and status. */
export interface WalletRequest {
  method: string;
  path: string;
  status: number;
}

/**
 * A wallet instance as the OpenWallet Foundation client (@openid4vc/openid4vci `Openid4vciClient`)
 * runs it: node:crypto keys, jose signatures, real HTTP, and client authentication by a client
 * attestation (`attest_jwt_client_auth`) from the platform's demo wallet provider, bound to the
 * instance key; the library signs a fresh PoP for every request to the authorization server.
 * Every request it makes is logged in `requests`.
 */
export class AttestedWallet {
  readonly requests: WalletRequest[] = [];
  readonly client: Openid4vciClient;
  /** The key the client attestation binds (`cnf.jwk`); signs the attestation PoPs. */
  readonly instanceKey: WalletKey;
  private readonly keys = new Map<string, WalletKey>();

  private constructor(
    readonly clientId: string,
    instanceKey: WalletKey,
    clientAttestationJwt: string,
  ) {
    this.instanceKey = instanceKey;
    this.register(instanceKey);
    const base = {
      hash: (data: Uint8Array, alg: string) =>
        new Uint8Array(createHash(alg.replace("-", "").toLowerCase()).update(data).digest()),
      generateRandom: (length: number) => new Uint8Array(randomBytes(length)),
      signJwt: (async (signer, { header, payload }) => {
        if (signer.method !== "jwk") throw new Error(`the wallet signs with jwk signers only, not ${signer.method}`);
        const key = this.keys.get(JSON.stringify(signer.publicJwk));
        if (!key) throw new Error("the wallet holds no such key");
        const jwt = await new SignJWT(payload as never).setProtectedHeader(header as never).sign(key.privateKey);
        return { jwt, signerJwk: signer.publicJwk };
      }) as CallbackContext["signJwt"],
    };
    const callbacks: Omit<CallbackContext, "verifyJwt" | "decryptJwe" | "encryptJwe"> = {
      ...base,
      clientAuthentication: clientAuthenticationClientAttestationJwt({ clientAttestationJwt, callbacks: base }),
      fetch: (async (input: string | URL | Request, init?: RequestInit) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        const response = await fetch(input, init);
        this.requests.push({
          method: (init?.method ?? "GET").toUpperCase(),
          path: url.pathname,
          status: response.status,
        });
        return response;
      }) as CallbackContext["fetch"],
    };
    this.client = new Openid4vciClient({ callbacks });
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

  /** A new P-256 key the wallet may sign with (DPoP, key proofs). */
  key(): WalletKey {
    return this.register(walletKey("ES256"));
  }

  /** The library's signer for a key of this wallet. */
  static signerOf(key: WalletKey): JwtSignerJwk {
    return { method: "jwk", alg: key.alg, publicJwk: key.publicJwk as Jwk };
  }

  private register(key: WalletKey): WalletKey {
    this.keys.set(JSON.stringify(key.publicJwk), key);
    return key;
  }
}
