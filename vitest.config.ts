import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["services/**/*.test.ts", "cli/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "test/bench/**"],
    globalSetup: ["test/setup/global-database.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
