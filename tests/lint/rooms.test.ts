// The rooms of lib/services: a new file directly in lib/services fails lint unless it is one of the
// shared helpers; the same file inside a room passes.
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

async function roomErrors(file: string): Promise<string[]> {
  const [result] = await eslint.lintText("export const x = 1;\n", { filePath: path.join(ROOT, file) });
  return result.messages.filter((m) => m.ruleId === "no-restricted-syntax").map((m) => m.message);
}

describe("rooms of lib/services", () => {
  it("refuses a new flat service file", async () => {
    expect(await roomErrors("lib/services/new-resource.ts")).toEqual([expect.stringContaining("Put a service in its room")]);
    expect(await roomErrors("lib/services/new-resource.test.ts")).toHaveLength(1);
  });

  it.each(["lib/services/syncs/new-resource.ts", "lib/services/transaction.ts", "lib/services/unique-names.ts", "lib/services/run-events.ts"])(
    "allows %s",
    async (file) => {
      expect(await roomErrors(file)).toEqual([]);
    },
  );
});
