import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": import.meta.dirname,
      // Tests load server modules outside Next's react-server bundle (see tsconfig.node.json).
      "server-only": `${import.meta.dirname}/node_modules/server-only/empty.js`,
    },
  },
  test: {
    include: ["lib/**/*.test.ts", "components/**/*.test.ts", "app/**/*.test.ts", "tests/**/*.test.ts", "scripts/**/*.test.ts"],
    globalSetup: ["tests/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    fileParallelism: true,
    // Connectors refuse loopback targets by default; the tests' databases and servers are on it.
    // Workers the tests spawn (`node --import tsx`) need tsconfig.node.json's `server-only` too.
    env: { OUTBOUND_ALLOW_PRIVATE: "127.0.0.1,::1", TSX_TSCONFIG_PATH: "tsconfig.node.json" },
  },
});
