import { readdirSync } from "node:fs";
import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";
import { houseRules } from "./lint/house-rules.mjs";

// Layer rules; tests/lint/layers.test.ts shows each one failing. Tests, scripts and the benchmark may
// import anything.
const UNLAYERED = ["**/*.test.ts", "**/*.test.tsx", "tests/**", "e2e/**", "bench/**", "scripts/**"];

// Prisma (the client, lib/db's pools) is reached only from services, the engine and lib/db itself.
// Type-only imports of generated model types stay allowed: serializers name the rows they copy.
// lib/http/errors.ts is the one error mapper and must recognise Prisma's error classes.
const prismaOutsideItsLayers = {
  files: ["**/*.ts", "**/*.tsx"],
  ignores: [...UNLAYERED, "lib/services/**", "lib/engine/**", "lib/db/**", "lib/generated/**", "lib/http/errors.ts"],
  rules: {
    "@typescript-eslint/no-restricted-imports": [
      "error",
      {
        patterns: [
          {
            // lib/db/pg-wire is the wire format (COPY in and out), no connection of its own: connectors use it too.
            regex: "^(@/lib/|(\\.\\./)+(lib/)?)db(?!/pg-wire/)(/.*)?$",
            message: "Only lib/services, lib/engine and lib/db use the database; call a service.",
          },
          {
            regex: "^(@/lib/|(\\.\\./)+(lib/)?)generated/prisma(/(?!enums$).*)?$",
            allowTypeImports: true,
            message: "Only lib/services, lib/engine and lib/db use the Prisma client; import types with `import type`.",
          },
          { regex: "^@prisma/", message: "Only lib/services, lib/engine and lib/db use Prisma." },
        ],
      },
    ],
  },
};

// Zones are resolved to files, so relative and `@/` imports are caught alike.
const SERVER_ONLY = ["./lib/db", "./lib/services", "./lib/engine", "./lib/crypto"];

// lib/engine/index.ts is the engine's one entrance: everything outside lib/engine imports it and
// nothing else there (tests and the benchmark, UNLAYERED, may reach inside: a test drives the unit it
// tests and the engine's fixtures, lib/engine/test-support.ts).
const OUTSIDE_ENGINE = ["./app", "./components", "./proxy.ts", ...readdirSync(new URL("./lib", import.meta.url)).filter((e) => e !== "engine").map((e) => `./lib/${e}`)];
const engineEntrance = (target) => ({
  target,
  from: "./lib/engine",
  except: ["./index.ts"],
  message: "Import the engine through its entrance, @/lib/engine (lib/engine/index.ts); isomorphic helpers the console needs live in lib/sync-rules.",
});
const layerZones = {
  files: ["**/*.ts", "**/*.tsx"],
  ignores: UNLAYERED,
  rules: {
    "import/no-restricted-paths": [
      "error",
      {
        basePath: import.meta.dirname,
        zones: [
          {
            target: "./lib/connectors",
            from: ["./lib/services", "./lib/engine", "./lib/http"],
            message: "Connectors are pure adapters: configuration and rows in, results out.",
          },
          {
            // PostgreSQL's COPY wire format is shared with the engine; the rest of lib/db is the app's database.
            target: "./lib/connectors",
            from: "./lib/db",
            except: ["./pg-wire"],
            message: "Connectors are pure adapters: configuration and rows in, results out.",
          },
          {
            target: ["./components", "./lib/api-client", "./app/**/page.tsx", "./app/**/layout.tsx"],
            from: SERVER_ONLY,
            message: "Console code runs in the browser too; shared domain code lives in lib/sync-rules.",
          },
          {
            target: "./lib/api-client",
            from: "./components",
            message: "The API client is below the components; move what both need to a shared module.",
          },
          {
            target: "./lib/net",
            from: ["./lib/connectors", "./lib/engine", "./lib/services", "./lib/http"],
            message: "lib/net is below its users: the guard and the HTTP client know no connector, run or service.",
          },
          {
            target: "./lib/engine",
            from: "./lib/services",
            message:
              "The engine imports no service: a service subscribes to the engine's run events (lib/engine/events.ts) or hangs on startEngine's services, wired in lib/services/run-events.ts.",
          },
          engineEntrance(OUTSIDE_ENGINE),
        ],
      },
    ],
  },
};

// The start scripts are unlayered but still enter the engine through index.ts.
const scriptZones = {
  files: ["scripts/**/*.ts"],
  rules: {
    "import/no-restricted-paths": ["error", { basePath: import.meta.dirname, zones: [engineEntrance("./scripts")] }],
  },
};

// lib/services is grouped in rooms by capability (docs/conventions.md); only the helpers every room
// uses and the run-events wiring sit flat. tests/lint/rooms.test.ts shows the rule failing.
const flatServices = {
  files: ["lib/services/*.ts"],
  ignores: ["lib/services/transaction.ts", "lib/services/transaction.test.ts", "lib/services/unique-names.ts", "lib/services/run-events.ts", "lib/services/run-events.test.ts"],
  rules: {
    "no-restricted-syntax": [
      "error",
      { selector: "Program", message: "Put a service in its room (lib/services/accounts, syncs, catalogue…), not flat in lib/services." },
    ],
  },
};

// Outbound HTTP has one home, lib/net: the outbound guard (policy.ts) and the clients behind it. Vendor
// SDKs send their own (given guardedSdkAgents). The console's and the CLI's calls of this service's own
// API (components, lib/api-client) are no tenant-directed traffic. tests/lint/outbound-http.test.ts.
const outboundHttp = {
  files: ["**/*.ts", "**/*.tsx"],
  ignores: [...UNLAYERED, "lib/net/**", "components/**", "lib/api-client/**"],
  plugins: { house: houseRules },
  rules: { "house/outbound-http-home": "error" },
};

// SQL of the application database is typed by the schema (docs/conventions.md): no raw query with a
// hand-written row type. Connectors query their customers' systems, pg-wire speaks COPY.
// tests/lint/typed-sql.test.ts.
const typedSql = {
  files: ["lib/**/*.ts", "app/**/*.ts"],
  ignores: [
    ...UNLAYERED,
    "lib/connectors/**",
    "lib/db/pg-wire/**",
    // The tests' helper that runs what a test writes (its SQL is the test's).
    "lib/engine/test-support.ts",
  ],
  plugins: { house: houseRules },
  rules: { "house/typed-sql": "error" },
};

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
  prismaOutsideItsLayers,
  flatServices,
  layerZones,
  scriptZones,
  outboundHttp,
  typedSql,
  {
    // docs/conventions.md 11 and 12: cite what a reader can open; one job per file, about 400 lines.
    files: ["**/*.ts", "**/*.tsx", "**/*.mjs"],
    plugins: { house: houseRules },
    rules: {
      "house/no-outside-citations": "error",
      "max-lines": ["error", { max: 400, skipBlankLines: true }],
    },
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
];

export default config;
