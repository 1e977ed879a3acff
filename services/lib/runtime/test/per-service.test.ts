import type { ServiceContext } from "@attesto/runtime/service";
import { perService } from "@attesto/runtime/service";
import { describe, expect, it } from "vitest";

describe("perService", () => {
  it("makes one value per service context, on first use", () => {
    let made = 0;
    const depsOf = perService((context: ServiceContext) => ({ service: context.service, serial: ++made }));
    const [a, b] = [{ service: "a" }, { service: "b" }] as unknown as ServiceContext[];
    expect(made).toBe(0);
    expect(depsOf(a!)).toBe(depsOf(a!));
    expect(depsOf(b!)).toEqual({ service: "b", serial: 2 });
    expect(made).toBe(2);
  });
});
