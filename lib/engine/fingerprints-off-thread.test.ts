// Fingerprints computed on the thread must be fingerprintAll's, byte for byte, and must not be read
// before they are; a thread that cannot run must cost nothing but speed.
import { hash } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LineBatch } from "@/lib/db/pg-wire/line-batch";
import { heldBatch } from "@/tests/support/held-lines";
import { seededBelow } from "@/tests/support/random";
import { fingerprintAll } from "./fingerprints";

/** Texts of every UTF-8 length, COPY escapes and a lone surrogate, enough to go to the thread. */
function texts(count: number, seed: number): string[] {
  const below = seededBelow(seed);
  const alphabet = ["a", "Z", "7", "\t", "\\n", "é", "€", "𝄞", "\ud800", " ", "{"];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let t = "";
    for (let j = below(200); j > 0; j--) t += alphabet[below(alphabet.length)];
    out.push(t);
  }
  out.push("x".repeat(100_000));
  return out;
}

const md5 = (text: string) => hash("md5", text);

/** The module as a process first loads it (no thread yet), with its logger's warnings watched. */
async function freshModule() {
  const { logger } = await import("@/lib/logger");
  const warn = vi.spyOn(logger, "warn");
  return { ...(await import("./fingerprints-off-thread")), warn };
}

afterEach(() => {
  vi.doUnmock("@/lib/runtime/script-bundle");
  vi.resetModules();
  vi.restoreAllMocks();
});

describe("fingerprintOffThread", () => {
  it("gives fingerprintAll's digests, read only once ready, for batches in flight together", async () => {
    const { fingerprintOffThread, warn } = await freshModule();
    const batches = [texts(3000, 1), texts(500, 2), texts(2000, 3)];
    const pending = batches.map((b) => fingerprintOffThread("v1:seed:", b));
    // Not yet computed: reading now would take zeros for fingerprints.
    expect(() => pending[0].hex(0)).toThrow(/before they were computed/);
    for (const [n, digests] of pending.entries()) {
      await digests.ready;
      const expected = fingerprintAll("v1:seed:", batches[n]);
      const wrong = batches[n].filter((_, i) => digests.hex(i) !== expected.hex(i) || digests.word(i, 3) !== expected.word(i, 3));
      expect(wrong).toEqual([]);
      expect(digests.hex(batches[n].length - 1)).toBe(md5(`v1:seed:${"x".repeat(100_000)}`));
    }
    // The thread computed them: this thread did not have to.
    expect(warn).not.toHaveBeenCalled();
  });

  it("hashes held lines where they are: all of a joined batch or some, in one chunk or many, with its record rows when asked", async () => {
    const { fingerprintLines, warn } = await freshModule();
    // Lines without a newline or a tab of their own: as a source's COPY text sends them.
    const lines = texts(3000, 7).map((t) => t.replace(/[\t\n]/g, " "));
    const chunked = heldBatch(lines, 100);
    const joined = LineBatch.join([{ batch: chunked, from: 0, to: lines.length }]);
    const every = Int32Array.from(lines, (_, i) => i);
    const some = every.filter((i) => i % 3 !== 1);
    for (const [batch, kept, recordRows] of [
      [joined, every, true],
      [joined, some, false],
      [chunked, some, true],
    ] as const) {
      const digests = fingerprintLines("v1:seed:", batch, kept, recordRows);
      await digests.ready;
      const expected = fingerprintAll("v1:seed:", Array.from(kept, (i) => lines[i]));
      expect(Array.from(kept, (_, k) => digests.hex(k))).toEqual(Array.from(kept, (_, k) => expected.hex(k)));
    }
    // Asked of a joined batch only (its lines are side by side): "c", the line, a newline each.
    expect(joined.recordRows?.equals(Buffer.from(lines.map((l) => `c${l}\n`).join(""), "utf8"))).toBe(true);
    expect(chunked.recordRows).toBeNull();
    expect(warn).not.toHaveBeenCalled();
  });

  it("a batch that cannot be posted fails alone: no answer is waited for, the next batch goes to the thread", async () => {
    const { fingerprintOffThread, warn } = await freshModule();
    const unclonable = [...texts(300, 5), (() => "x") as unknown as string];
    const failed = fingerprintOffThread("s", unclonable);
    // Neither thread can hash a function: the batch fails, as fingerprintAll would have thrown.
    await expect(failed.ready).rejects.toThrow();
    expect(() => failed.hex(0)).toThrow(/before they were computed/);
    expect(warn).toHaveBeenCalledTimes(1);
    const batch = texts(400, 6);
    const next = fingerprintOffThread("s", batch);
    // Posted: not computed yet.
    expect(() => next.hex(0)).toThrow(/before they were computed/);
    await next.ready;
    expect(batch.filter((t, i) => next.hex(i) !== md5(`s${t}`))).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("hashes a small batch in place, ready at once", async () => {
    const { fingerprintOffThread } = await import("./fingerprints-off-thread");
    const digests = fingerprintOffThread("s", ["a", "é"]);
    expect([digests.hex(0), digests.hex(1)]).toEqual([md5("sa"), md5("sé")]);
  });

  it("computes the digests on the calling thread when the thread cannot run, and stops trying", async () => {
    const broken = path.join(os.tmpdir(), `md5-thread-broken-${process.pid}.cjs`);
    writeFileSync(broken, "throw new Error('no thread here');\n");
    const bundled = vi.fn(() => broken);
    vi.doMock("@/lib/runtime/script-bundle", () => ({ bundledScript: bundled }));
    const { fingerprintOffThread } = await import("./fingerprints-off-thread");
    const batch = texts(1000, 4);
    const first = fingerprintOffThread("seed", batch);
    await first.ready;
    expect(batch.filter((t, i) => first.hex(i) !== md5(`seed${t}`))).toEqual([]);
    // The next batch does not start another thread that would fail the same way.
    const second = fingerprintOffThread("seed", batch);
    expect(second.hex(7)).toBe(md5(`seed${batch[7]}`));
    expect(bundled).toHaveBeenCalledTimes(1);
    rmSync(broken);
  });

  it("a held batch whose thread failed is hashed here and keeps its buffers: none is reused by another batch", async () => {
    const broken = path.join(os.tmpdir(), `md5-thread-broken-held-${process.pid}.cjs`);
    writeFileSync(broken, "throw new Error('no thread here');\n");
    vi.doMock("@/lib/runtime/script-bundle", () => ({ bundledScript: () => broken }));
    const { fingerprintLines } = await import("./fingerprints-off-thread");
    // The pool and the batch class of the module just loaded, as the thread's caller sees them.
    const { sharedBuffers } = await import("@/lib/db/pg-wire/shared-buffers");
    const { LineBatch: Fresh } = await import("@/lib/db/pg-wire/line-batch");
    const lines = texts(1000, 3).map((t) => t.replace(/[\t\n]/g, " "));
    const joined = Fresh.join([{ batch: heldBatch(lines, 100), from: 0, to: lines.length }]);
    const every = Int32Array.from(lines, (_, i) => i);
    const digests = fingerprintLines("v1:seed:", joined, every, true);
    await digests.ready;
    const expected = fingerprintAll("v1:seed:", lines);
    expect(lines.filter((_, i) => digests.hex(i) !== expected.hex(i))).toEqual([]);
    const kept = sharedBuffers.keptCount();
    joined.release();
    expect(sharedBuffers.keptCount()).toBe(kept);
    rmSync(broken);
  });
});
