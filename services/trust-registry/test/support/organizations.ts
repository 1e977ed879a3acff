import { randomBytes } from "node:crypto";
import type { App } from "@attesto/runtime/http";
import { expect } from "vitest";
import { startTestRegistry, type TestRegistryOptions } from "./test-registry.js";

export const PASSWORD = "Correct-Horse-1";

let ipCounter = 0;
/** A fresh client IP, so that suites never share the per-IP apply budget by accident. */
export function nextIp(): string {
  ipCounter += 1;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

/** A tenant identifier no other test uses. */
export const uniqueTenant = (label = "org") => `${label}-${randomBytes(5).toString("hex")}`;

export interface Organization {
  uuid: string;
  tenant: string;
  apiKey: string;
  password: string;
}

export function apply(app: App, body: unknown, ip: string = nextIp()) {
  return app.inject({ method: "POST", url: "/v1/apply", payload: body as object, remoteAddress: ip });
}

/** Applies with valid defaults (overridable) and returns the new organization. */
export async function registerOrganization(app: App, overrides: Record<string, unknown> = {}): Promise<Organization> {
  const body = { name: "Acme University", password: PASSWORD, tenant: uniqueTenant(), ...overrides };
  const response = await apply(app, body);
  expect(response.statusCode, response.body).toBe(201);
  const json = response.json() as { uuid: string; api_key: string };
  return {
    uuid: json.uuid,
    tenant: String(body.tenant).toLowerCase(),
    apiKey: json.api_key,
    password: String(body.password),
  };
}

export function logIn(app: App, body: unknown) {
  return app.inject({ method: "POST", url: "/v1/auth/login", payload: body as object });
}

/** Logs the organization in and returns its access token. */
export async function accessTokenOf(app: App, organization: Organization): Promise<string> {
  const response = await logIn(app, { uuid: organization.uuid, password: organization.password });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { access_token: string }).access_token;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A test registry with one approved organization logged in: its tenant and access token. */
export async function startRegistryWithOrganization(options?: TestRegistryOptions) {
  const registry = await startTestRegistry(options);
  const organization = await registerOrganization(registry.app);
  return { registry, tenant: organization.tenant, token: await accessTokenOf(registry.app, organization) };
}
