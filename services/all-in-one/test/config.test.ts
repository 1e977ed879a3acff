import { describe, expect, it } from "vitest";
import { loadLauncherConfig } from "../src/config.js";

describe("loadLauncherConfig", () => {
  it("defaults to embedded PGlite in .attesto, the default ports (root README), local interface", () => {
    expect(loadLauncherConfig({})).toEqual({
      ATTESTO_DATA_DIR: ".attesto",
      PORT_OFFSET: 0,
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      STARTUP_TIMEOUT_MS: 60_000,
      SHUTDOWN_GRACE_MS: 10_000,
      IN_PROCESS_RPC: true,
    });
  });

  it("names every bad variable at once", () => {
    expect(() =>
      loadLauncherConfig({
        DATABASE_URL: "mysql://x",
        PORT_OFFSET: "60000",
        LOG_LEVEL: "loud",
      }),
    ).toThrow(/DATABASE_URL: must be a postgres:\/\/ URL[\s\S]*PORT_OFFSET[\s\S]*LOG_LEVEL/);
  });

  it("treats empty variables as unset", () => {
    expect(loadLauncherConfig({ DATABASE_URL: "", PORT_OFFSET: "" }).DATABASE_URL).toBeUndefined();
  });
});
