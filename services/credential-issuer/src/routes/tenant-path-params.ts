import { zTenantPathSegment } from "@attesto/runtime/tenant-id";
import { z } from "zod";

/** `:tenant` of public paths (the tenant-id module's path segment rule). */
export const zTenantParams = z.object({ tenant: zTenantPathSegment() });
