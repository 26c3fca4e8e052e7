// The house rules ESLint does not ship (lint/house-rules.mjs) and the size limit, shown failing.
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FILE = path.join(ROOT, "lib/engine/example.ts");

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

async function ruleIds(code: string): Promise<(string | null)[]> {
  const [result] = await eslint.lintText(code, { filePath: FILE });
  return result.messages.map((m) => m.ruleId);
}

describe("house rules", () => {
  it("refuses a citation of a document outside the repository, in a comment or a string", async () => {
    // Put together here, so this file does not cite them itself.
    const [behaviour, spec] = [["behaviour", "md"].join("."), ["..", "shared", "spec", ""].join("/")];
    expect(await ruleIds(`// as ${behaviour} says\nexport const x = 1;\n`)).toContain("house/no-outside-citations");
    expect(await ruleIds(`export const x = "see ${spec}api";\n`)).toContain("house/no-outside-citations");
    expect(await ruleIds("// see docs/architecture.md\nexport const x = 1;\n")).not.toContain("house/no-outside-citations");
  });

  it("refuses a file of more than 400 non-blank lines, and counts no blank line", async () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const x${i} = ${i};`).join("\n\n") + "\n";
    expect(await ruleIds(lines(401))).toContain("max-lines");
    expect(await ruleIds(lines(400))).not.toContain("max-lines");
  });
});
