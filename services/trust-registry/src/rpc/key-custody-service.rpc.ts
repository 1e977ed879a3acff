import { keysV1 } from "@attesto/proto";
import { badRequest } from "@attesto/runtime/errors";
import type { DescMessage, MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter, ServiceImpl } from "@connectrpc/connect";
import type {
  ImportedSigningCertificate,
  KeyAlgorithm,
  KeyCustody,
  VerifierCertificateSource,
} from "../custody/key-custody.js";

type Reply<Schema extends DescMessage> = Promise<MessageInitShape<Schema>>;

function algorithmFromWire(alg: keysV1.KeyAlgorithm): KeyAlgorithm {
  switch (alg) {
    case keysV1.KeyAlgorithm.EDDSA:
      return "EdDSA";
    case keysV1.KeyAlgorithm.ES256:
      return "ES256";
    default:
      throw badRequest("alg is required: KEY_ALGORITHM_EDDSA or KEY_ALGORITHM_ES256");
  }
}

const sourceFromWire = (source: keysV1.VerifierCertificateSource): VerifierCertificateSource =>
  source === keysV1.VerifierCertificateSource.IMPORTED ? "imported" : "platform";

const sourceToWire = (source: VerifierCertificateSource): keysV1.VerifierCertificateSource =>
  source === "imported" ? keysV1.VerifierCertificateSource.IMPORTED : keysV1.VerifierCertificateSource.PLATFORM;

const algorithmToWire = (alg: KeyAlgorithm): keysV1.KeyAlgorithm =>
  alg === "EdDSA" ? keysV1.KeyAlgorithm.EDDSA : keysV1.KeyAlgorithm.ES256;

function parsePrivateJwk(json: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw badRequest("private_jwk_json is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badRequest("private_jwk_json must be a JSON object");
  }
  return value as Record<string, unknown>;
}

const importedToWire = (
  imported: ImportedSigningCertificate,
): MessageInitShape<typeof keysV1.ImportSigningCertificateResponseSchema> => ({
  keyId: imported.keyId,
  x5c: imported.x5c,
  fingerprint: imported.fingerprint,
  notAfter: timestampFromDate(imported.notAfter),
  changed: imported.changed,
});

/**
 * attesto.keys.v1.KeyCustodyService over a KeyCustody: wire enums and JSON strings in and out.
 * Domain errors (AppError) pass through; the server's interceptor maps them to Connect codes.
 * Who may call each method is the runtime's caller policy (CALLER_POLICY), not this class.
 */
export class KeyCustodyServiceRpc implements ServiceImpl<typeof keysV1.KeyCustodyService> {
  constructor(private readonly custody: KeyCustody) {}

  async generateKey(request: keysV1.GenerateKeyRequest): Reply<typeof keysV1.GenerateKeyResponseSchema> {
    const held = await this.custody.generateKey(request.tenant, algorithmFromWire(request.alg));
    return { keyId: held.keyId, publicJwkJson: JSON.stringify(held.publicJwk) };
  }

  async importKey(request: keysV1.ImportKeyRequest): Reply<typeof keysV1.ImportKeyResponseSchema> {
    const alg = algorithmFromWire(request.alg);
    const held = await this.custody.importKey(request.tenant, alg, parsePrivateJwk(request.privateJwkJson));
    return { keyId: held.keyId, publicJwkJson: JSON.stringify(held.publicJwk) };
  }

  async sign(request: keysV1.SignRequest): Reply<typeof keysV1.SignResponseSchema> {
    const { signature, alg } = await this.custody.sign(request.tenant, request.keyId, request.signingInput);
    return { signature, alg: algorithmToWire(alg) };
  }

  async describeKey(request: keysV1.DescribeKeyRequest): Reply<typeof keysV1.DescribeKeyResponseSchema> {
    const held = await this.custody.describeKey(request.tenant, request.keyId);
    return {
      keyId: held.keyId,
      alg: algorithmToWire(held.alg),
      publicJwkJson: JSON.stringify(held.publicJwk),
      x5c: held.x5c ?? [],
    };
  }

  async getSigningCertificate(
    request: keysV1.GetSigningCertificateRequest,
  ): Reply<typeof keysV1.GetSigningCertificateResponseSchema> {
    const certificate = await this.custody.signingCertificate(request.tenant);
    return {
      keyId: certificate.keyId,
      publicJwkJson: JSON.stringify(certificate.publicJwk),
      x5c: certificate.x5c,
      trustAnchor: certificate.trustAnchor,
    };
  }

  async getVerifierCertificate(
    request: keysV1.GetVerifierCertificateRequest,
  ): Reply<typeof keysV1.GetVerifierCertificateResponseSchema> {
    const certificate = await this.custody.verifierCertificate(
      request.tenant,
      sourceFromWire(request.source),
      request.host,
    );
    return {
      keyId: certificate.keyId,
      publicJwkJson: JSON.stringify(certificate.publicJwk),
      x5c: certificate.x5c,
      trustAnchor: certificate.trustAnchor,
      source: sourceToWire(certificate.source),
    };
  }

  async importSigningCertificate(
    request: keysV1.ImportSigningCertificateRequest,
  ): Reply<typeof keysV1.ImportSigningCertificateResponseSchema> {
    return importedToWire(
      await this.custody.importSigningCertificate(request.tenant, request.chain, request.privateKeyPem),
    );
  }

  async importVerifierCertificate(
    request: keysV1.ImportSigningCertificateRequest,
  ): Reply<typeof keysV1.ImportSigningCertificateResponseSchema> {
    return importedToWire(
      await this.custody.importVerifierCertificate(request.tenant, request.chain, request.privateKeyPem),
    );
  }

  async clearVerifierCertificate(
    request: keysV1.ClearSigningCertificateRequest,
  ): Reply<typeof keysV1.ClearSigningCertificateResponseSchema> {
    return { cleared: await this.custody.clearVerifierCertificate(request.tenant) };
  }

  async clearSigningCertificate(
    request: keysV1.ClearSigningCertificateRequest,
  ): Reply<typeof keysV1.ClearSigningCertificateResponseSchema> {
    return { cleared: await this.custody.clearSigningCertificate(request.tenant) };
  }

  async getTrustAnchors(): Reply<typeof keysV1.GetTrustAnchorsResponseSchema> {
    return { certificates: await this.custody.trustAnchors() };
  }

  async rewrapKeys(): Reply<typeof keysV1.RewrapKeysResponseSchema> {
    return { rewrapped: await this.custody.rewrapKeys() };
  }
}

/** Mounts KeyCustodyService on the internal Connect router. */
export function registerKeyCustodyRpc(router: ConnectRouter, custody: KeyCustody): void {
  router.service(keysV1.KeyCustodyService, new KeyCustodyServiceRpc(custody));
}
