import { randomBytes } from "node:crypto";
import type { InteropPlatform } from "./platform.js";

/** An organization registered through the trust registry's public API. */
export interface Tenant {
  tenant: string;
  uuid: string;
  password: string;
  apiKey: string;
}

export interface OrganizationDid {
  did: string;
  key_id: string;
  public_key_jwk: Record<string, unknown>;
  private_key: string;
}

export interface CreatedOffer {
  offer_id: string;
  credential_offer_uri: string;
  deep_link: string;
  expires_at: string;
}

async function call<T>(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown },
  expected: number,
): Promise<T> {
  const response = await fetch(url, {
    method: init.method ?? "POST",
    headers: { "content-type": "application/json", ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (response.status !== expected) {
    throw new Error(`${init.method ?? "POST"} ${url}: expected ${expected}, got ${response.status} ${text}`);
  }
  return JSON.parse(text) as T;
}

/** POST /v1/apply: a fresh tenant (issuer and verifier) and its API key. */
export async function applyTenant(platform: InteropPlatform, label: string): Promise<Tenant> {
  const tenant = `${label}-${randomBytes(4).toString("hex")}`;
  const password = `Interop-${randomBytes(6).toString("hex")}1A`;
  const applied = await call<{ uuid: string; status: string; api_key: string }>(
    `${platform.url("trust-registry")}/v1/apply`,
    { body: { name: `Interop ${label}`, password, tenant, is_issuer: true, is_verifier: true } },
    201,
  );
  return { tenant, uuid: applied.uuid, password, apiKey: applied.api_key };
}

/** POST /v1/auth/login, then POST /v1/did: a did:ledger DID and its Ed25519 seed (returned once). */
export async function createOrganizationDid(platform: InteropPlatform, tenant: Tenant): Promise<OrganizationDid> {
  const login = await call<{ access_token: string }>(
    `${platform.url("trust-registry")}/v1/auth/login`,
    { body: { uuid: tenant.uuid, password: tenant.password } },
    200,
  );
  return call<OrganizationDid>(
    `${platform.url("trust-registry")}/v1/did`,
    { headers: { authorization: `Bearer ${login.access_token}` }, body: {} },
    201,
  );
}

/** The claims every interop credential carries (university-diploma v1, a seeded type). */
export const DIPLOMA_CLAIMS = {
  given_name: "Ada",
  family_name: "Lovelace",
  birth_date: "1815-12-10",
  degree: { type: "master", name: "Master of Science in Mathematics" },
  institution: { name: "University of London", country: "GB" },
  awarded_on: "1843-09-01",
};

/** POST /v1/offers: DID signing with `did` (its seed as issuer_private_key), else X.509 signing. */
export async function createOffer(
  platform: InteropPlatform,
  tenant: Tenant,
  options: { did?: OrganizationDid; claims?: Record<string, unknown> } = {},
): Promise<CreatedOffer> {
  return call<CreatedOffer>(
    `${platform.url("credential-issuer")}/v1/offers`,
    {
      headers: { "x-api-key": tenant.apiKey },
      body: {
        credential: { config_id: "university-diploma", claims: options.claims ?? DIPLOMA_CLAIMS },
        flow: "pre-authorized",
        ...(options.did ? { issuer_did: options.did.did, issuer_private_key: options.did.private_key } : {}),
      },
    },
    201,
  );
}
