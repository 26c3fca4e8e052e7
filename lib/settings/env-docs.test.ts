// The README's variable tables are the schema's, and every variable the code reads is documented.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENV_NAMES } from "./env";
import { CLI_VARIABLES, MARKERS, renderTable, RUNTIME_VARIABLES, section, TEST_VARIABLES } from "./env-docs";

const ROOT = path.resolve(import.meta.dirname, "../..");
const README = readFileSync(path.join(ROOT, "README.md"), "utf8");

/** Read here but not ours to document: other programs' switches, and a test's own placeholder. */
const NOT_OURS = new Set([
  "NEXT_TELEMETRY_DISABLED", // Next's, set by scripts/start.ts
  "AUTH_TRUST_HOST", // next-auth's, set by lib/auth/next-auth.ts
  "PRISMA_SCHEMA_ENGINE_BINARY", // Prisma's, passed on by scripts/prisma-generate.ts
  "DS_TEST_PASSWORD", // the value an ENV['X'] placeholder test resolves
  "PATH", // the system's, searched by bench/mariadb.ts for the MariaDB client
  "AWS_ACCESS_KEY_ID", // the AWS SDK's, the server's own identity in the S3 role test
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (["node_modules", "generated", ".next", ".data"].includes(entry) || entry.startsWith(".")) return [];
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts)$/.test(entry) ? [full] : [];
  });
}

describe("README environment tables", () => {
  it("show the schema's variables, defaults and descriptions (npm run docs:env rewrites them)", () => {
    expect(section(README, MARKERS.runtime)).toBe(renderTable(RUNTIME_VARIABLES));
    expect(RUNTIME_VARIABLES.map((v) => v.name)).toEqual(ENV_NAMES);
  });

  it("show the test variables", () => {
    expect(section(README, MARKERS.test)).toBe(renderTable(TEST_VARIABLES));
    expect(section(README, MARKERS.cli)).toBe(renderTable(CLI_VARIABLES));
  });

  it("cover every variable the code reads by name", () => {
    const documented = new Set([
      ...ENV_NAMES,
      ...[...TEST_VARIABLES, ...CLI_VARIABLES].map((v) => v.name),
      ...NOT_OURS,
    ]);
    const read = new Map<string, string>();
    const dirs = ["app", "components", "lib", "scripts", "tests", "e2e", "bench"].map((d) =>
      path.join(ROOT, d),
    );
    const files = [
      ...dirs.flatMap(sourceFiles),
      ...["proxy.ts", "next.config.ts", "playwright.config.ts"].map((f) => path.join(ROOT, f)),
    ];
    for (const file of files) {
      const code = readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line));
      for (const m of code.join("\n").matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g))
        read.set(m[1], path.relative(ROOT, file));
    }
    expect(read.size).toBeGreaterThan(20);
    const undocumented = [...read]
      .filter(([name]) => !documented.has(name))
      .map(([name, file]) => `${name} (${file})`);
    expect(undocumented).toEqual([]);
  });
});
