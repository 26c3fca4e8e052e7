// What a run's progress is measured against when it has no previous run to go by: the source's
// bounded count, read as count / count_bound / unknown, and never asked for when counting is off.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { BoundedCount, CountOptions } from "@/lib/connectors/types";
import { countEstimate } from "./run-estimate";

const read = { query: "SELECT 1", batchSize: 100 };

function source(answer: BoundedCount | null) {
  const countRows = vi.fn(async (_config: unknown, _options: CountOptions) => answer);
  return { countRows };
}

afterEach(() => {
  delete process.env.ENGINE_ROW_COUNT_LIMIT;
  delete process.env.ENGINE_ROW_COUNT_TIMEOUT_SECONDS;
});

describe("a first run's estimate", () => {
  it("is the source's count, bounded by ENGINE_ROW_COUNT_LIMIT rows and ENGINE_ROW_COUNT_TIMEOUT_SECONDS", async () => {
    process.env.ENGINE_ROW_COUNT_LIMIT = "5000";
    process.env.ENGINE_ROW_COUNT_TIMEOUT_SECONDS = "2.5";
    const exact = source({ rows: 37, more: false });
    expect(await countEstimate(exact, {}, read)).toEqual({ source: "count", rows: 37 });
    expect(exact.countRows.mock.calls[0][1]).toMatchObject({ query: "SELECT 1", limit: 5000, timeoutMs: 2500 });
  });

  it('is "more than N" when the count stopped at its bound, and unknown when it ran out of time', async () => {
    expect(await countEstimate(source({ rows: 1_000_000, more: true }), {}, read)).toEqual({ source: "count_bound", rows: 1_000_000 });
    expect(await countEstimate(source(null), {}, read)).toEqual({ source: "unknown", rows: null });
  });

  it("is unknown without asking when the source cannot count, counting is off, or the run was canceled", async () => {
    expect(await countEstimate({}, {}, read)).toEqual({ source: "unknown", rows: null });
    for (const [name, value] of [["ENGINE_ROW_COUNT_LIMIT", "0"], ["ENGINE_ROW_COUNT_TIMEOUT_SECONDS", "0"]]) {
      process.env[name] = value;
      const off = source({ rows: 1, more: false });
      expect(await countEstimate(off, {}, read)).toEqual({ source: "unknown", rows: null });
      expect(off.countRows).not.toHaveBeenCalled();
      delete process.env[name];
    }
    const canceled = source({ rows: 1, more: false });
    expect(await countEstimate(canceled, {}, { ...read, signal: AbortSignal.abort() })).toEqual({ source: "unknown", rows: null });
    expect(canceled.countRows).not.toHaveBeenCalled();
  });
});
