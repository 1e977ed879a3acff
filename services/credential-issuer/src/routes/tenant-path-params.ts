import { z } from "zod";

/** `:tenant` of public paths. Tenant identifiers are lowercased at registration (the trust-registry README), so the path matches them case-insensitively. */
export const zTenantParams = z.object({ tenant: z.string().min(1).max(100).toLowerCase() });
