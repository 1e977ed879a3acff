import { InvalidCredentialRequest, InvalidProof } from "@attesto/runtime/errors";
import { MAX_BATCH_SIZE } from "./create-issuer-metadata.js";

/** A credential request (OID4VCI 1.0 §8.2), checked and translated; unknown parameters are ignored. */
export interface CredentialRequest {
  credentialConfigurationId: string;
  /** Compact JWT key proofs: one credential is issued per proof. */
  proofJwts: string[];
  isOnChain: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function parseConfigurationId(body: Record<string, unknown>): string {
  const { credential_configuration_id: id, credential_identifier: identifier } = body;
  if (id !== undefined && identifier !== undefined) {
    throw new InvalidCredentialRequest("credential_configuration_id and credential_identifier are mutually exclusive");
  }
  if (identifier !== undefined) {
    throw new InvalidCredentialRequest("credential_identifier is not yet supported; use credential_configuration_id");
  }
  if (id === undefined) throw new InvalidCredentialRequest("credential_configuration_id is required");
  if (typeof id !== "string" || id === "")
    throw new InvalidCredentialRequest("credential_configuration_id must be a string");
  return id;
}

/** `proofs: {jwt: [...]}` (1.0), or the draft `proof: {proof_type: "jwt", jwt}` older wallets send. */
function parseProofs(body: Record<string, unknown>): string[] {
  const { proofs, proof } = body;
  if (proofs !== undefined && proof !== undefined)
    throw new InvalidCredentialRequest("give either proofs or proof, not both");
  if (proof !== undefined) {
    if (!isObject(proof)) throw new InvalidProof("proof must be an object");
    if (proof.proof_type !== "jwt")
      throw new InvalidProof("proof.proof_type must be jwt (the only proof type supported)");
    if (typeof proof.jwt !== "string" || proof.jwt === "") throw new InvalidProof("proof.jwt must be a JWT string");
    return [proof.jwt];
  }
  if (proofs === undefined) throw new InvalidProof("proofs are required: credentials are bound to the holder's key");
  if (!isObject(proofs)) throw new InvalidProof("proofs must be an object");
  const types = Object.keys(proofs);
  const unsupported = types.find((type) => type !== "jwt");
  if (unsupported !== undefined) throw new InvalidProof(`proof type ${unsupported} is not supported; use jwt`);
  const jwts = proofs.jwt;
  if (!Array.isArray(jwts) || jwts.length === 0 || jwts.some((jwt) => typeof jwt !== "string" || jwt === "")) {
    throw new InvalidProof("proofs.jwt must be a non-empty array of JWT strings");
  }
  if (jwts.length > MAX_BATCH_SIZE) {
    throw new InvalidCredentialRequest(`at most ${MAX_BATCH_SIZE} proofs may be sent in one request (batch_size)`);
  }
  return jwts as string[];
}

export function parseCredentialRequest(body: unknown): CredentialRequest {
  if (!isObject(body)) throw new InvalidCredentialRequest("request body must be a JSON object");
  const credentialConfigurationId = parseConfigurationId(body);
  if (body.is_on_chain !== undefined && typeof body.is_on_chain !== "boolean") {
    throw new InvalidCredentialRequest("is_on_chain must be a boolean");
  }
  return { credentialConfigurationId, proofJwts: parseProofs(body), isOnChain: body.is_on_chain === true };
}
