import { type CustomResource, createEventRecorder, EVENT_AGGREGATION_WINDOW_MS } from "@attesto/operator";
import { beforeEach, describe, expect, it } from "vitest";
import { InMemoryKube } from "./support/in-memory-kube.js";

/** Events aggregated as client-go's EventRecorder does: a repeat counts on the recorded Event. */
let kube: InMemoryKube;
let now: Date;
let errors: unknown[];

const tenant: CustomResource = {
  apiVersion: "attesto.dev/v1alpha1",
  kind: "Tenant",
  metadata: { name: "acme", namespace: "tenants", uid: "uid-acme", resourceVersion: "7" },
};

function recorder() {
  return createEventRecorder({
    kube,
    component: "attesto-operator",
    instance: "operator-0",
    now: () => now,
    onError: (error) => errors.push(error),
  });
}

beforeEach(() => {
  kube = new InMemoryKube();
  now = new Date("2026-11-22T10:00:00.000Z");
  errors = [];
});

describe("EventRecorder", () => {
  it("counts a repeat of the same Event on it (count, lastTimestamp) instead of creating another", async () => {
    const events = recorder();
    await events.record(tenant, "Warning", "PlatformUnavailable", "trust registry unavailable");
    now = new Date(now.getTime() + 2_000);
    await events.record(tenant, "Warning", "PlatformUnavailable", "trust registry unavailable");
    now = new Date(now.getTime() + 4_000);
    await events.record(tenant, "Warning", "PlatformUnavailable", "trust registry unavailable");
    expect(kube.events).toHaveLength(1);
    expect(kube.events[0]).toMatchObject({
      involvedObject: { kind: "Tenant", name: "acme", uid: "uid-acme" },
      type: "Warning",
      reason: "PlatformUnavailable",
      count: 3,
      firstTimestamp: "2026-11-22T10:00:00.000Z",
      lastTimestamp: "2026-11-22T10:00:06.000Z",
    });
    expect(errors).toEqual([]);
  });

  it("keeps Events apart that differ in object, type, reason or message", async () => {
    const events = recorder();
    const other = { ...tenant, metadata: { ...tenant.metadata, name: "globex", uid: "uid-globex" } };
    await events.record(tenant, "Warning", "PlatformUnavailable", "down");
    await events.record(other, "Warning", "PlatformUnavailable", "down");
    await events.record(tenant, "Normal", "PlatformUnavailable", "down");
    await events.record(tenant, "Warning", "PlatformRejected", "down");
    await events.record(tenant, "Warning", "PlatformUnavailable", "down again");
    await events.record(tenant, "Warning", "PlatformUnavailable", "down");
    expect(kube.events.map((event) => event.count)).toEqual([2, 1, 1, 1, 1]);
  });

  it("starts a new Event once the aggregation window has passed since the last repeat", async () => {
    const events = recorder();
    await events.record(tenant, "Warning", "PlatformUnavailable", "down");
    now = new Date(now.getTime() + EVENT_AGGREGATION_WINDOW_MS - 1);
    await events.record(tenant, "Warning", "PlatformUnavailable", "down");
    // The window counts from the last repeat.
    now = new Date(now.getTime() + EVENT_AGGREGATION_WINDOW_MS - 1);
    await events.record(tenant, "Warning", "PlatformUnavailable", "down");
    expect(kube.events.map((event) => event.count)).toEqual([3]);
    now = new Date(now.getTime() + EVENT_AGGREGATION_WINDOW_MS);
    await events.record(tenant, "Warning", "PlatformUnavailable", "down");
    expect(kube.events.map((event) => event.count)).toEqual([3, 1]);
  });

  it("creates the Event again when the recorded one is gone (expired by the apiserver)", async () => {
    const events = recorder();
    await events.record(tenant, "Warning", "PlatformUnavailable", "down");
    kube.events.splice(0);
    await events.record(tenant, "Warning", "PlatformUnavailable", "down");
    await events.record(tenant, "Warning", "PlatformUnavailable", "down");
    expect(kube.events.map((event) => event.count)).toEqual([2]);
    expect(errors).toEqual([]);
  });

  it("concurrent repeats count on one Event", async () => {
    const events = recorder();
    await Promise.all(Array.from({ length: 5 }, () => events.record(tenant, "Warning", "PlatformUnavailable", "down")));
    expect(kube.events.map((event) => event.count)).toEqual([5]);
  });
});
