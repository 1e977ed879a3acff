import { isIP } from "node:net";
import { x509 } from "./x509.js";

/**
 * The names a tenant's signing certificate stands for: the tenant's credential issuer identifier,
 * which is the `iss` of its credentials (`<credential issuer public URL>/<tenant>`), and its host.
 * The SD-JWT VC draft has a verifier match an https `iss` against a uniformResourceIdentifier SAN of
 * the `x5c` leaf; HAIP matches the host against a dNSName SAN.
 */
export interface IssuerNames {
  /** The exact `iss`. */
  uri: string;
  /** The host of `iss` (no port), lowercase; an IP literal becomes an iPAddress SAN. */
  host: string;
}

/** The credential issuer identifier of `tenant` under the credential issuer's public URL. */
export function issuerNamesOf(credentialIssuerUrl: string, tenant: string): IssuerNames {
  const base = credentialIssuerUrl.replace(/\/+$/, "");
  const host = new URL(base).hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return { uri: `${base}/${tenant}`, host };
}

/** subjectAltName of a platform-issued leaf: the `iss` as URI and its host as dNSName (or iPAddress). */
export function issuerSubjectAltName(names: IssuerNames): x509.SubjectAlternativeNameExtension {
  return new x509.SubjectAlternativeNameExtension([
    { type: "url", value: names.uri },
    { type: isIP(names.host) ? "ip" : "dns", value: names.host },
  ]);
}

/**
 * What a platform-issued leaf must name, and how to tell a stored leaf still does: the issuer's
 * (`issuerLeafNames`) or the verifier's (`verifierLeafNames`, verifier-names.ts).
 */
export interface LeafNames {
  /** The names as one string: requests for the same tenant and names are coalesced. */
  key: string;
  subjectAltName(): x509.SubjectAlternativeNameExtension;
  carriedBy(certificate: x509.X509Certificate): boolean;
}

export const issuerLeafNames = (names: IssuerNames): LeafNames => ({
  key: `${names.uri} ${names.host}`,
  subjectAltName: () => issuerSubjectAltName(names),
  carriedBy: (certificate) => carriesIssuerNames(certificate, names),
});

/** The subjectAltName entries of a certificate (none when it has no such extension). */
export function subjectAltNamesOf(certificate: x509.X509Certificate): Array<{ type: string; value: string }> {
  const extension = certificate.getExtension(x509.SubjectAlternativeNameExtension);
  return extension ? extension.names.items.map((name) => ({ type: name.type, value: name.value })) : [];
}

/**
 * Whether the certificate's SAN names the issuer the way the SD-JWT VC draft requires for an https
 * `iss`: a uniformResourceIdentifier equal to it. A dNSName alone does not do: every tenant shares
 * the issuer's host, so it would name all of them.
 */
export const namesIssuer = (certificate: x509.X509Certificate, names: IssuerNames): boolean =>
  subjectAltNamesOf(certificate).some((name) => name.type === "url" && name.value === names.uri);

/** Whether a platform-issued leaf carries exactly what issuerSubjectAltName puts in (URI and host). */
export const carriesIssuerNames = (certificate: x509.X509Certificate, names: IssuerNames): boolean =>
  namesIssuer(certificate, names) &&
  subjectAltNamesOf(certificate).some(
    (name) => (name.type === "dns" || name.type === "ip") && name.value.toLowerCase() === names.host,
  );

/** A one-line description of the SAN entries, for error messages. */
export function describeSubjectAltNames(certificate: x509.X509Certificate): string {
  const names = subjectAltNamesOf(certificate);
  return names.length === 0 ? "no subjectAltName" : names.map((name) => `${name.type}:${name.value}`).join(", ");
}
