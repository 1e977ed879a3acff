import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createWakeSignal, startPollingLoop } from "../src/polling-loop.js";

/** Fake timers: every interval below is the loop's own, advanced by the test, never waited for. */
describe("startPollingLoop", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const loopWith = (results: boolean[], options: { intervalMs?: number; idleIntervalMs?: number } = {}) => {
    const ticks: number[] = [];
    const errors: unknown[] = [];
    const loop = startPollingLoop({
      intervalMs: options.intervalMs ?? 1_000,
      idleIntervalMs: options.idleIntervalMs ?? 10_000,
      tick: async () => {
        ticks.push(Date.now());
        const next = results.shift();
        if (next === undefined) throw new Error("tick failed");
        return next;
      },
      onError: (error) => errors.push(error),
    });
    return { loop, ticks, errors };
  };

  it("ticks at the interval while work is left and at the idle interval once none is", async () => {
    const start = Date.now();
    const { loop, ticks } = loopWith([true, true, false, false]);
    await vi.advanceTimersByTimeAsync(22_999);
    expect(ticks.map((at) => at - start)).toEqual([1_000, 2_000, 3_000, 13_000]);
    await loop.stop();
  });

  it("a wake while idle brings the next tick within the interval", async () => {
    const start = Date.now();
    const { loop, ticks } = loopWith([false, false, false]);
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.advanceTimersByTimeAsync(500);
    loop.wake();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ticks.map((at) => at - start)).toEqual([1_000, 2_500]);
    await loop.stop();
  });

  it("a wake does not postpone a tick already due sooner", async () => {
    const start = Date.now();
    const { loop, ticks } = loopWith([true, false]);
    await vi.advanceTimersByTimeAsync(1_500);
    loop.wake();
    await vi.advanceTimersByTimeAsync(500);
    expect(ticks.map((at) => at - start)).toEqual([1_000, 2_000]);
    await loop.stop();
  });

  it("a wake during a tick keeps the loop busy for one more tick", async () => {
    const start = Date.now();
    let release: (busy: boolean) => void = () => {};
    const ticks: number[] = [];
    const loop = startPollingLoop({
      intervalMs: 1_000,
      idleIntervalMs: 10_000,
      tick: () => {
        ticks.push(Date.now() - start);
        return new Promise<boolean>((resolve) => {
          release = resolve;
        });
      },
      onError: () => {},
    });
    await vi.advanceTimersByTimeAsync(1_000);
    loop.wake();
    release(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ticks).toEqual([1_000, 2_000]);
    release(false);
    await loop.stop();
  });

  it("reports a failed tick and retries it at the interval", async () => {
    const start = Date.now();
    const { loop, ticks, errors } = loopWith([]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(ticks.map((at) => at - start)).toEqual([1_000, 2_000]);
    expect(errors).toHaveLength(2);
    await loop.stop();
  });

  it("never ticks after stop, and stop waits for a running tick", async () => {
    let release: (busy: boolean) => void = () => {};
    let ticks = 0;
    const loop = startPollingLoop({
      intervalMs: 1_000,
      tick: () => {
        ticks += 1;
        return new Promise<boolean>((resolve) => {
          release = resolve;
        });
      },
      onError: () => {},
    });
    await vi.advanceTimersByTimeAsync(1_000);
    let stopped = false;
    const stopping = loop.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release(true);
    await stopping;
    loop.wake();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ticks).toBe(1);
  });

  it("without an idle interval, ticks at the interval whatever the result", async () => {
    const start = Date.now();
    const ticks: number[] = [];
    const loop = startPollingLoop({
      intervalMs: 1_000,
      tick: async () => {
        ticks.push(Date.now() - start);
        return false;
      },
      onError: () => {},
    });
    await vi.advanceTimersByTimeAsync(3_000);
    expect(ticks).toEqual([1_000, 2_000, 3_000]);
    await loop.stop();
  });

  it("a wake signal wakes the loop until it stops", async () => {
    const start = Date.now();
    const signal = createWakeSignal();
    const ticks: number[] = [];
    const loop = startPollingLoop({
      intervalMs: 1_000,
      idleIntervalMs: 10_000,
      tick: async () => {
        ticks.push(Date.now() - start);
        return false;
      },
      onError: () => {},
      wakeOn: signal,
    });
    await vi.advanceTimersByTimeAsync(1_500);
    signal.wake();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ticks).toEqual([1_000, 2_500]);
    await loop.stop();
    signal.wake();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ticks).toEqual([1_000, 2_500]);
  });
});
