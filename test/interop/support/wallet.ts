import { createHash, randomBytes } from "node:crypto";
import {
  type CallbackContext,
  clientAuthenticationAnonymous,
  type Jwk,
  type JwtSigner,
  type RequestDpopOptions,
  setGlobalConfig,
} from "@openid4vc/oauth2";
import { type IssuerMetadataResult, Openid4vciClient } from "@openid4vc/openid4vci";
import { SignJWT } from "jose";
import { didKeyOf, didKeyUrlOf, type WalletKey, walletKey } from "./keys.js";

// The platform runs on http://localhost in tests.
setGlobalConfig({ allowInsecureUrls: true });

/** One HTTP exchange the wallet library made: method, URL path and status. */
export interface WalletRequest {
  method: string;
  path: string;
  status: number;
}

/**
 * The OpenWallet Foundation wallet client (@openid4vc/openid4vci over @openid4vc/oauth2) with
 * its crypto as callbacks over node:crypto and jose, fetching over real HTTP. Keys it may sign
 * with are registered first (`key()`); every request it makes is logged in `requests`.
 */
export class InteropWallet {
  readonly requests: WalletRequest[] = [];
  private readonly keys = new Map<string, WalletKey>();
  readonly callbacks: Omit<CallbackContext, "verifyJwt" | "decryptJwe" | "encryptJwe">;
  readonly client: Openid4vciClient;

  /**
   * `clientAuthentication`: how the wallet authenticates to the authorization server, made from
   * the wallet's own crypto callbacks (anonymous when absent); `keys`: keys it holds from the start.
   */
  constructor(
    options: {
      clientAuthentication?: (
        callbacks: Pick<CallbackContext, "hash" | "generateRandom" | "signJwt">,
      ) => CallbackContext["clientAuthentication"];
      keys?: WalletKey[];
    } = {},
  ) {
    for (const key of options.keys ?? []) this.keys.set(JSON.stringify(key.publicJwk), key);
    const crypto: Pick<CallbackContext, "hash" | "generateRandom" | "signJwt"> = {
      hash: (data, alg) => new Uint8Array(createHash(alg.replace("-", "").toLowerCase()).update(data).digest()),
      generateRandom: (length) => new Uint8Array(randomBytes(length)),
      signJwt: async (signer: JwtSigner, { header, payload }) => {
        const key = this.keyFor(signer);
        const jwt = await new SignJWT(payload as never).setProtectedHeader(header as never).sign(key.privateKey);
        return { jwt, signerJwk: key.publicJwk };
      },
    };
    this.callbacks = {
      ...crypto,
      clientAuthentication: options.clientAuthentication?.(crypto) ?? clientAuthenticationAnonymous(),
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
    this.client = new Openid4vciClient({ callbacks: this.callbacks });
  }

  /** A new key the wallet may sign with. */
  key(alg: "ES256" | "EdDSA"): WalletKey {
    const key = walletKey(alg);
    this.keys.set(JSON.stringify(key.publicJwk), key);
    if (alg === "EdDSA") this.keys.set(didKeyOf(key), key);
    return key;
  }

  private keyFor(signer: JwtSigner): WalletKey {
    const name =
      signer.method === "jwk"
        ? JSON.stringify(signer.publicJwk)
        : signer.method === "did"
          ? signer.didUrl.split("#")[0]!
          : undefined;
    const key = name === undefined ? undefined : this.keys.get(name);
    if (!key) throw new Error(`the wallet holds no key for signer ${signer.method}`);
    return key;
  }
}

export type ProofKeyReference = "jwk" | "did:key";

export interface ReceiveOptions {
  /** Send DPoP proofs (token and credential requests) with a fresh P-256 key. */
  dpop: boolean;
  /** The holder key the credential is bound to, and how the proof names it. */
  proofKey: WalletKey;
  proofKeyReference: ProofKeyReference;
}

export interface ReceivedCredential {
  credential: string;
  credentialIssuer: string;
  credentialConfigurationId: string;
  issuerMetadata: IssuerMetadataResult;
  accessToken: string;
  tokenType: string;
  cNonce: string;
  /** DPoP state after the credential request (signer and latest nonce), when DPoP was used. */
  dpop: RequestDpopOptions | undefined;
  preAuthorizedCode: string;
}

export function proofSignerOf(key: WalletKey, reference: ProofKeyReference): JwtSigner {
  return reference === "jwk"
    ? { method: "jwk", alg: key.alg, publicJwk: key.publicJwk }
    : { method: "did", alg: key.alg, didUrl: didKeyUrlOf(key) };
}

/**
 * The pre-authorized code flow as the OWF wallet runs it: resolve the offer (deep link ->
 * credential_offer_uri), issuer metadata and AS metadata, token (with the DPoP nonce retry the
 * library does itself), nonce endpoint, key proof, credential request (again with its DPoP retry).
 */
export async function receiveCredential(
  wallet: InteropWallet,
  deepLink: string,
  options: ReceiveOptions,
): Promise<ReceivedCredential> {
  const { client } = wallet;
  const credentialOffer = await client.resolveCredentialOffer(deepLink);
  const issuerMetadata = await client.resolveIssuerMetadata(credentialOffer.credential_issuer);
  const dpopKey = options.dpop ? wallet.key("ES256") : undefined;
  const dpopSigner = dpopKey
    ? { method: "jwk" as const, alg: "ES256", publicJwk: dpopKey.publicJwk as Jwk }
    : undefined;
  const token = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
    credentialOffer,
    issuerMetadata,
    ...(dpopSigner ? { dpop: { signer: dpopSigner } } : {}),
  });
  const { c_nonce } = await client.requestNonce({ issuerMetadata });
  const credentialConfigurationId = credentialOffer.credential_configuration_ids[0]!;
  const { jwt } = await client.createCredentialRequestJwtProof({
    issuerMetadata,
    credentialConfigurationId,
    signer: proofSignerOf(options.proofKey, options.proofKeyReference),
    nonce: c_nonce,
  });
  const result = await client.retrieveCredentials({
    issuerMetadata,
    accessToken: token.accessTokenResponse.access_token,
    credentialConfigurationId,
    proofs: { jwt: [jwt] },
    ...(dpopSigner ? { dpop: { ...token.dpop, signer: dpopSigner } } : {}),
  });
  const credentials = result.credentialResponse.credentials as Array<{ credential: string }> | undefined;
  if (credentials?.length !== 1) throw new Error(`expected one credential, got ${JSON.stringify(credentials)}`);
  const grant = credentialOffer.grants?.["urn:ietf:params:oauth:grant-type:pre-authorized_code"] as
    | { "pre-authorized_code": string }
    | undefined;
  return {
    credential: credentials[0]!.credential,
    credentialIssuer: credentialOffer.credential_issuer,
    credentialConfigurationId,
    issuerMetadata,
    accessToken: token.accessTokenResponse.access_token,
    tokenType: token.accessTokenResponse.token_type,
    cNonce: c_nonce,
    dpop: dpopSigner ? { signer: dpopSigner, nonce: result.dpop?.nonce ?? token.dpop?.nonce } : undefined,
    preAuthorizedCode: grant?.["pre-authorized_code"] ?? "",
  };
}

/** A credential held by a fresh OWF wallet (ES256 key, jwk proof, DPoP), with its `vct`, for suites that present it. */
export interface HeldCredential {
  credential: string;
  holder: WalletKey;
  vct: string;
}

/** Redeems `deepLink` (a pre-authorized offer) with a new wallet: the credential, its holder key and its vct. */
export async function holdCredential(deepLink: string): Promise<HeldCredential> {
  const wallet = new InteropWallet();
  const holder = wallet.key("ES256");
  const received = await receiveCredential(wallet, deepLink, {
    dpop: true,
    proofKey: holder,
    proofKeyReference: "jwk",
  });
  const configuration = received.issuerMetadata.credentialIssuer.credential_configurations_supported[
    received.credentialConfigurationId
  ] as unknown as { vct: string };
  return { credential: received.credential, holder, vct: configuration.vct };
}
