import { createPrivateKey } from "node:crypto";
import { rpcErrorCodeOf } from "@attesto/runtime/rpc";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { decodeSecretValue } from "../kube/kube-client.js";
import type { IssuerSpec } from "../resources.js";
import { blockedError, fromPlatformError, retryableError } from "./reconcile-error.js";
import type { ReconcileDeps } from "./reconciler.js";
import { assertUnexpired, readTlsSecret } from "./tls-secret.js";
import { certificateFromBase64Der } from "./x509.js";

/**
 * What an Issuer signs with, read and checked from its spec and Secrets before anything is written:
 * DID (an optional keyRef JWK, validated only), the platform-issued certificate, or the tenant's own
 * chain and key from `certificateRef` (to import into key custody).
 */
export type SigningMaterial =
  | { kind: "did" }
  | { kind: "platform" }
  | { kind: "imported"; secretName: string; chainDer: Uint8Array[]; privateKeyPem: string };

export interface AppliedSigning {
  keyId?: string;
  fingerprint?: string;
  notAfter?: string;
  /** Set when a certificateRef chain was imported: whether custody changed. */
  imported?: { changed: boolean };
}

/**
 * Key custody's code for a leaf whose subjectAltName does not name the tenant's credential issuer
 * identifier (the `iss` of its credentials): verifiers following the SD-JWT VC draft would refuse them.
 */
const CERTIFICATE_NAME_MISMATCH = "certificate_name_mismatch";

/** Reads and checks the Issuer's signing material (no platform write). */
export async function readSigningMaterial(
  deps: ReconcileDeps,
  namespace: string,
  spec: IssuerSpec,
): Promise<SigningMaterial> {
  if (spec.signingMode === "DID") {
    if (spec.keyRef) {
      const secret = await deps.kube.getSecret(namespace, spec.keyRef.name);
      const jwk = decodeSecretValue(secret, spec.keyRef.key);
      if (!jwk) throw retryableError("KeySecretNotFound", `Secret ${spec.keyRef.name} has no key ${spec.keyRef.key}`);
      try {
        createPrivateKey({ key: JSON.parse(jwk), format: "jwk" });
      } catch {
        throw blockedError("InvalidSigningKey", `Secret ${spec.keyRef.name}/${spec.keyRef.key} is not a private JWK`);
      }
    }
    return { kind: "did" };
  }
  if (!spec.certificateRef) return { kind: "platform" };
  const { secretName, chainDer, privateKeyPem } = await readTlsSecret(
    deps,
    namespace,
    spec.certificateRef.name,
    "signing certificate",
  );
  return { kind: "imported", secretName, chainDer, privateKeyPem };
}

/**
 * Brings key custody to the material: imports a certificateRef chain (idempotent), or else drops a
 * chain imported earlier and, in X509 mode, reads the platform-issued certificate.
 */
export async function applySigning(
  deps: ReconcileDeps,
  tenantId: string,
  material: SigningMaterial,
): Promise<AppliedSigning> {
  if (material.kind === "imported") {
    const imported = await deps.platform.keys
      .importSigningCertificate({ tenant: tenantId, chain: material.chainDer, privateKeyPem: material.privateKeyPem })
      .catch((error: unknown) => {
        const connect = ConnectError.from(error);
        if (rpcErrorCodeOf(error) === CERTIFICATE_NAME_MISMATCH) {
          throw blockedError("CertificateNameMismatch", `Secret ${material.secretName}: ${connect.rawMessage}`, error);
        }
        if (connect.code === Code.InvalidArgument) {
          throw blockedError("InvalidCertificate", `Secret ${material.secretName}: ${connect.rawMessage}`, error);
        }
        throw fromPlatformError(error, "ImportSigningCertificate");
      });
    return {
      keyId: imported.keyId,
      fingerprint: imported.fingerprint,
      notAfter: imported.notAfter ? timestampDate(imported.notAfter).toISOString() : undefined,
      imported: { changed: imported.changed },
    };
  }
  await clearImportedCertificate(deps, tenantId);
  if (material.kind === "did") return {};
  const issued = await deps.platform.keys.getSigningCertificate({ tenant: tenantId }).catch((error: unknown) => {
    throw fromPlatformError(error, "GetSigningCertificate");
  });
  const leafDer = issued.x5c[0];
  if (!leafDer) throw retryableError("PlatformError", "GetSigningCertificate returned no certificate");
  return {
    keyId: issued.keyId,
    ...assertUnexpired(certificateFromBase64Der(leafDer), deps.now(), "signing certificate"),
  };
}

/** Drops the tenant's imported signing certificate (idempotent); whether there was one. */
export async function clearImportedCertificate(deps: ReconcileDeps, tenantId: string): Promise<boolean> {
  const response = await deps.platform.keys.clearSigningCertificate({ tenant: tenantId }).catch((error: unknown) => {
    throw fromPlatformError(error, "ClearSigningCertificate");
  });
  return response.cleared;
}
