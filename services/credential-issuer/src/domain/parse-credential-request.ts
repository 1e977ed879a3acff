import { describeFieldErrors, type FieldError, InvalidCredentialRequest, InvalidProof } from "@attesto/runtime/errors";
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

/** One failing field, with the OID4VCI error code it calls for. */
interface Problem extends FieldError {
  code: "invalid_credential_request" | "invalid_proof";
}

const requestProblem = (field: string, message: string): Problem => ({
  code: "invalid_credential_request",
  field,
  message,
});
const proofProblem = (field: string, message: string): Problem => ({ code: "invalid_proof", field, message });

function configurationIdProblem(body: Record<string, unknown>): Problem | undefined {
  const { credential_configuration_id: id, credential_identifier: identifier } = body;
  if (id !== undefined && identifier !== undefined) {
    return requestProblem("credential_identifier", "must not be given with credential_configuration_id");
  }
  if (identifier !== undefined) {
    return requestProblem("credential_identifier", "is not yet supported; use credential_configuration_id");
  }
  if (id === undefined) return requestProblem("credential_configuration_id", "is required");
  if (typeof id !== "string" || id === "") return requestProblem("credential_configuration_id", "must be a string");
  return undefined;
}

/** `proofs: {jwt: [...]}` (1.0), or the draft `proof: {proof_type: "jwt", jwt}` older wallets send. */
function proofsProblem(body: Record<string, unknown>): Problem | undefined {
  const { proofs, proof } = body;
  if (proofs !== undefined && proof !== undefined) return requestProblem("proof", "must not be given with proofs");
  if (proof !== undefined) {
    if (!isObject(proof)) return proofProblem("proof", "must be a JSON object");
    if (proof.proof_type !== "jwt")
      return proofProblem("proof.proof_type", "must be jwt (the only proof type supported)");
    if (typeof proof.jwt !== "string" || proof.jwt === "") return proofProblem("proof.jwt", "must be a JWT string");
    return undefined;
  }
  if (proofs === undefined) return proofProblem("proofs", "is required: credentials are bound to the holder's key");
  if (!isObject(proofs)) return proofProblem("proofs", "must be a JSON object");
  // The unsupported type's name is the client's input: never echoed.
  if (Object.keys(proofs).some((type) => type !== "jwt")) {
    return proofProblem("proofs", "names a proof type that is not supported; use jwt");
  }
  const jwts = proofs.jwt;
  if (!Array.isArray(jwts) || jwts.length === 0 || jwts.some((jwt) => typeof jwt !== "string" || jwt === "")) {
    return proofProblem("proofs.jwt", "must be a non-empty array of JWT strings");
  }
  if (jwts.length > MAX_BATCH_SIZE) {
    return requestProblem("proofs.jwt", `must have at most ${MAX_BATCH_SIZE} proofs in one request (batch_size)`);
  }
  return undefined;
}

const proofJwtsOf = (body: Record<string, unknown>): string[] =>
  isObject(body.proof) ? [body.proof.jwt as string] : ((body.proofs as { jwt: string[] }).jwt ?? []);

/**
 * Checks every field and names every failing one in one answer; the error code is that of the
 * first problem (identifiers before proofs: OID4VCI 1.0 §8.3.1.2).
 */
export function parseCredentialRequest(body: unknown): CredentialRequest {
  if (!isObject(body)) {
    const problem = requestProblem("body", "must be a JSON object");
    throw new InvalidCredentialRequest(describeFieldErrors([problem]), { fieldErrors: [fieldErrorOf(problem)] });
  }
  const problems = [
    configurationIdProblem(body),
    body.is_on_chain !== undefined && typeof body.is_on_chain !== "boolean"
      ? requestProblem("is_on_chain", "must be a boolean")
      : undefined,
    proofsProblem(body),
  ].filter((problem): problem is Problem => problem !== undefined);
  const [first] = problems;
  if (first) {
    const fieldErrors = problems.map(fieldErrorOf);
    const ErrorClass = first.code === "invalid_proof" ? InvalidProof : InvalidCredentialRequest;
    throw new ErrorClass(describeFieldErrors(fieldErrors), { fieldErrors });
  }
  return {
    credentialConfigurationId: body.credential_configuration_id as string,
    proofJwts: proofJwtsOf(body),
    isOnChain: body.is_on_chain === true,
  };
}

const fieldErrorOf = ({ field, message }: Problem): FieldError => ({ field, message });
