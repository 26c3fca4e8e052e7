// `npm run worker` must start the worker with the environment the bench measures it with.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WORKER_NODE_FLAGS, WORKER_PROCESS_ENV } from "./worker-process-env";

describe("WORKER_PROCESS_ENV", () => {
  it("is what package.json's worker script sets before it starts scripts/worker.ts", () => {
    const pkg = JSON.parse(readFileSync(path.resolve(__dirname, "../package.json"), "utf8")) as { scripts: Record<string, string> };
    const words = pkg.scripts.worker.split(/\s+/);
    const assignments = words.slice(0, words.findIndex((w) => !/^[A-Z_]+=/.test(w)));
    expect(Object.fromEntries(assignments.map((a) => a.split("=")))).toEqual(WORKER_PROCESS_ENV);
    expect(words).toContain("scripts/worker.ts");
  });

  it("goes with the V8 flags package.json's worker script passes before scripts/worker.ts", () => {
    const pkg = JSON.parse(readFileSync(path.resolve(__dirname, "../package.json"), "utf8")) as { scripts: Record<string, string> };
    const words = pkg.scripts.worker.split(/\s+/);
    const script = words.indexOf("scripts/worker.ts");
    expect(words.filter((w, i) => i < script && /^--(initial|max|min)-/.test(w))).toEqual([...WORKER_NODE_FLAGS]);
  });
});
