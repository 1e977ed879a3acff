import { defineConfig } from "vitest/config";

/** The longer replica run (README.md beside this file); not part of `npm test`. */
export default defineConfig({
  test: {
    include: ["hack/replicas/**/*.soak.ts"],
    globalSetup: ["test/setup/global-database.ts"],
    pool: "forks",
    testTimeout: 24 * 3600_000,
    hookTimeout: 300_000,
  },
});
