import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

const config = [
  ...nextCoreWebVitals,
  ...nextTypescript,
  {
    ignores: [
      "node_modules/**",
      ".next/**",
      ".next-*/**",
      ".data/**",
      "lib/generated/**",
      "lib/api-client/generated/**",
      "next-env.d.ts",
      "test-results/**",
      "playwright-report/**",
    ],
  },
  {
    // Test helpers named use* (useTestDatabase, Playwright's `use`) are not React hooks.
    files: ["**/*.test.ts", "tests/**", "e2e/**", "bench/**", "scripts/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  {
    // Every Liquid engine comes from createLiquid(): no file system, bounded parse, render and memory.
    files: ["**/*.ts", "**/*.tsx"],
    ignores: ["lib/liquid/engine.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        { selector: "NewExpression[callee.name='Liquid']", message: "Use createLiquid() from lib/liquid/engine.ts." },
      ],
    },
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
];

export default config;
