import { randomBytes } from "node:crypto";
import type { Platform } from "./platform.js";

export interface HttpAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/** One JSON request over real HTTP. */
export async function call<T = Record<string, unknown>>(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<HttpAnswer<T>> {
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as T, headers: response.headers };
}

/** Claims a university-diploma credential accepts (the seed schema of the schema registry). */
export const universityDiplomaClaims = {
  given_name: "Ada",
  family_name: "Lovelace",
  birth_date: "1815-12-10",
  degree: { type: "bachelor", name: "Mathematics", field_of_study: "Analysis" },
  institution: { name: "University of London", country: "GB" },
  awarded_on: "1835-06-01",
  grade: "First",
};

export interface Tenant {
  tenant: string;
  name: string;
  uuid: string;
  password: string;
  apiKey: string;
}

/** An organization registered at the trust registry (issuer and verifier roles). */
export async function applyTenant(platform: Platform): Promise<Tenant> {
  const tenant = `acme-${randomBytes(4).toString("hex")}`;
  const password = `Passw0rd-${randomBytes(4).toString("hex")}`;
  const name = "Acme University";
  const response = await call<{ uuid: string; api_key: string }>(`${platform.urls["trust-registry"]}/v1/apply`, {
    body: { name, password, tenant },
  });
  if (response.status !== 201) throw new Error(`apply failed: ${JSON.stringify(response.body)}`);
  return { tenant, name, uuid: response.body.uuid, password, apiKey: response.body.api_key };
}

/** A did:ledger DID of the tenant (trust registry POST /v1/did with the organization login token). */
export async function createTenantDid(
  platform: Platform,
  tenant: Tenant,
): Promise<{ did: string; privateKey: string }> {
  const login = await call<{ access_token: string }>(`${platform.urls["trust-registry"]}/v1/auth/login`, {
    body: { uuid: tenant.uuid, password: tenant.password },
  });
  const created = await call<{ did: string; private_key: string }>(`${platform.urls["trust-registry"]}/v1/did`, {
    method: "POST",
    headers: { authorization: `Bearer ${login.body.access_token}`, "content-type": "application/json" },
    body: {},
  });
  if (created.status !== 201) throw new Error(`tenant DID creation failed: ${JSON.stringify(created.body)}`);
  return { did: created.body.did, privateKey: created.body.private_key };
}

/** An offer of a university diploma: DID signing with `issuer`, else the X.509 path. */
export async function createOffer(
  platform: Platform,
  tenant: Tenant,
  issuer?: { did: string; privateKey: string },
): Promise<{ deep_link: string; offer_id: string }> {
  const response = await call<{ deep_link: string; offer_id: string }>(
    `${platform.urls["credential-issuer"]}/v1/offers`,
    {
      headers: { "x-api-key": tenant.apiKey },
      body: {
        credential: { config_id: "university-diploma", claims: universityDiplomaClaims },
        flow: "pre-authorized",
        ...(issuer ? { issuer_did: issuer.did, issuer_private_key: issuer.privateKey } : {}),
      },
    },
  );
  if (response.status !== 201) throw new Error(`offer creation failed: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** A holder account on the running holder service. */
export async function holderAccount(platform: Platform, name = "Ada") {
  const password = `pw-${randomBytes(6).toString("hex")}`;
  const registered = await call<{ uuid: string }>(`${platform.urls.holder}/v1/user/register`, {
    body: { password, name },
  });
  const login = await call<{ access_token: string }>(`${platform.urls.holder}/v1/user/login`, {
    body: { uuid: registered.body.uuid, password },
  });
  const headers = { authorization: `Bearer ${login.body.access_token}` };
  return {
    uuid: registered.body.uuid,
    headers,
    post: <T = Record<string, unknown>>(path: string, body: unknown) =>
      call<T>(`${platform.urls.holder}${path}`, { headers, body }),
    get: <T = Record<string, unknown>>(path: string) => call<T>(`${platform.urls.holder}${path}`, { headers }),
    delete: (path: string) => call(`${platform.urls.holder}${path}`, { method: "DELETE", headers }),
  };
}

export type HolderClient = Awaited<ReturnType<typeof holderAccount>>;
