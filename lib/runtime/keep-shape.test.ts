// V8 frees a class's map at a full GC once no object of it is alive, deoptimizing the code optimized
// for it (keep-shape.ts). The hot path's per-batch classes, built batch after batch with a full GC
// between batches, must not lose their optimized code so: none of their functions is deoptimized for
// "weak objects". Without the kept objects the same script logs ~200 such deoptimizations, in every class it builds.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const OURS = /SharedFunctionInfo (digest|hex|fingerprintAll|BatchKeys|before|jumpsAt|stretchesOf|keyGroups|row|room|text|int4|push|field|copyLine|heldLines|messages|range)>/;

describe("keepShape", () => {
  it("keeps the per-batch classes' optimized code across full GCs", { timeout: 60_000 }, async () => {
    const script = path.join(process.cwd(), "tests/fixtures/scripts/batch-shapes.ts");
    const { stdout } = await run(process.execPath, ["--expose-gc", "--trace-deopt", "--import", "tsx", script], { maxBuffer: 64 * 1024 * 1024 });
    expect(stdout).toMatch(/^done \d+$/m);
    // V8 names the function whose code it marks: ours are the md5, block order and COPY input ones.
    const ours = stdout.split("\n").filter((l) => /reason: weak objects/.test(l) && OURS.test(l));
    expect(ours).toEqual([]);
  });
});
