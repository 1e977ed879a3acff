import { z } from "zod";

/** `:tenant` of public paths. Tenant identifiers are lowercased at registration (spec §2.1), so the path matches them case-insensitively. */
export const zTenantParams = z.object({ tenant: z.string().min(1).max(100).toLowerCase() });
