import type { SignatureAlgorithm } from "@attesto/protocol";

/** How the holder obtains a token for an offer (`flow` of POST /v1/offers). */
export const offerFlows = ["pre-authorized", "authorization-code"] as const;
export type OfferFlow = (typeof offerFlows)[number];

/**
 * Offer states. `offered`: the grant (pre-authorized code or issuer_state) can be redeemed once,
 * until `expiresAt`. `redeemed`: the authorization server exchanged it for an access token; the
 * credential endpoint issues while that token is valid.
 */
export type OfferStatus = "offered" | "redeemed";

/**
 * Signing path, chosen by the key material given at creation (this service's README):
 * - `did`: the key given with the offer (Ed25519/EdDSA, or P-256/ES256 with a did:key), `kid` = DID URL,
 *   kept sealed once per tenant and key (issuer-keys.ts) and named by its thumbprint;
 * - `x509`: the tenant's P-256 key in key custody, `x5c` chain; requires DPoP-bound tokens (HAIP).
 */
export type OfferSigning =
  | {
      mode: "did";
      issuerDid: string;
      /** DID URL of the verification method: the credential's `kid`. */
      issuerKid: string;
      alg: SignatureAlgorithm;
      /** How the offer names its private key: see `OfferIssuerKey`. */
      key: OfferIssuerKey;
    }
  | { mode: "x509" };

/**
 * - `thumbprint`: RFC 7638 thumbprint of the public key; the private key is the tenant's, sealed once
 *   in `issuer_private_keys` (migration 0010) and imported once per process (issuer-keys.ts);
 * - `sealed`: offers made before: the private JWK (JSON) sealed with the offer, context `offer:<id>`.
 */
export type OfferIssuerKey = { thumbprint: string } | { sealedPrivateKey: string };

export type OfferGrant =
  | {
      type: "pre-authorized";
      /** Lowercase hex SHA-256 of the code: the only form redemption looks it up by (this service's README). */
      codeHash: string;
      /** The code itself, sealed, so the offer document can show it while the offer is live. */
      sealedCode: string;
      /** SHA-256 of the transaction code, when one is required (not yet offered: this service's README). */
      txCodeHash?: string;
    }
  | { type: "authorization-code"; issuerState: string };

/** A credential offer; every field is set at creation except the redemption fields. */
export interface Offer {
  id: string;
  tenant: string;
  credentialConfigurationId: string;
  vct: string;
  /** Claims validated against the type's JSON Schema at creation. */
  claims: Record<string, unknown>;
  signing: OfferSigning;
  grant: OfferGrant;
  /** The only DID whose key may receive the credential, when the issuer bound the offer to one. */
  holderDid?: string;
  status: OfferStatus;
  expiresAt: Date;
  createdAt: Date;
  /** Set when the grant is redeemed. */
  redeemedAt?: Date;
  /** The caller's idempotency key of the redemption that consumed the pre-authorized code. */
  redemptionId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Offer ids and issuer_states are UUIDs; anything else cannot name an offer. */
export const isUuid = (value: string): boolean => UUID.test(value);

/** Sealing context of an offer's issuer private key. */
export const privateKeyContext = (offerId: string) => `offer:${offerId}`;
/** Sealing context of an offer's pre-authorized code. */
export const preAuthorizedCodeContext = (offerId: string) => `offer:${offerId}:pre-authorized_code`;
export const isPreAuthorizedCodeContext = (context: string) =>
  context.startsWith("offer:") && context.endsWith(":pre-authorized_code");

/** The X.509 / HAIP path needs DPoP-bound tokens (the auth-server README). */
export const dpopRequiredFor = (offer: Pick<Offer, "signing">): boolean => offer.signing.mode === "x509";
