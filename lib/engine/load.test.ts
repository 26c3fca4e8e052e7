// The loader's retry, backoff and isolation logic against a scripted destination (pure: no I/O).
import { describe, expect, it } from "vitest";
import type { DestinationConnector, WriteOutcome, WriteRecord } from "@/lib/connectors/types";
import { parseRetryAfter } from "@/lib/net/http";
import { isRetryable, Loader, retryDelayMs, type LoaderOptions } from "./load";
import { tableStream } from "./test-support";

function destination(respond: (records: WriteRecord[], call: number) => WriteOutcome[]) {
  const calls: string[][] = [];
  const connector = {
    definition: {} as DestinationConnector["definition"],
    check: async () => ({ ok: true, details: "" }),
    discover: async () => ({ streams: [], request_rate_limit: 0, request_rate_limit_unit: "minute" as const, request_rate_concurrency: 1 }),
    write: async (_config: unknown, records: WriteRecord[]) => {
      calls.push(records.map((r) => r.key));
      return respond(records, calls.length);
    },
  } satisfies DestinationConnector;
  return { connector, calls };
}

const records = (n: number): WriteRecord[] => Array.from({ length: n }, (_, i) => ({ key: String(i + 1), action: "upsert", payload: { id: i + 1 } }));

function loader(connector: DestinationConnector, batch: boolean, batchSize = 4) {
  const l = new Loader({ destination: connector, config: {}, stream: tableStream("t"), batch, batchSize, concurrency: 2, baseDelayMs: 5, maxAttempts: 3 });
  return { timings: l.timings, loader: l };
}

describe("loader", () => {
  it("retries retryable outcomes with backoff, honouring Retry-After", async () => {
    const { connector, calls } = destination((rs, call) =>
      rs.map((r) => (call === 1 && r.key === "2" ? { key: r.key, ok: false, status: 429, retryAfterSeconds: 0.05, error: "slow down" } : { key: r.key, ok: true })),
    );
    const { loader: l, timings } = loader(connector, true);
    const out = await l.load(records(3));
    expect([...out.values()].every((o) => o.ok)).toBe(true);
    expect(calls).toEqual([["1", "2", "3"], ["2"]]);
    expect(timings.wait).toBeGreaterThanOrEqual(45);
  });

  it("hands each request's accepted records to onDelivered before their outcomes count, once each", async () => {
    const { connector } = destination((rs, call) =>
      rs.map((r) => (call === 1 && r.key === "2" ? { key: r.key, ok: false, status: 503, error: "busy" } : r.key === "4" ? { key: r.key, ok: false, status: 400, error: "bad" } : { key: r.key, ok: true })),
    );
    const delivered: string[][] = [];
    const l = new Loader({
      destination: connector,
      config: {},
      stream: tableStream("t"),
      batch: false,
      batchSize: 1,
      concurrency: 1,
      baseDelayMs: 5,
      maxAttempts: 3,
      onDelivered: async (rs) => {
        delivered.push(rs.map((r) => r.key));
      },
    });
    const out = await l.load(records(4));
    expect(delivered.flat().sort()).toEqual(["1", "2", "3"]);
    expect(out.get("4")).toMatchObject({ ok: false });
    // A ledger that cannot be written fails the load instead of letting the records count as delivered unrecorded.
    const failing = new Loader({ destination: connector, config: {}, stream: tableStream("t"), batch: false, batchSize: 1, concurrency: 1, onDelivered: async () => Promise.reject(new Error("ledger down")) });
    await expect(failing.load(records(1))).rejects.toThrow("ledger down");
  });

  it("gives up after the attempt limit and reports the last error", async () => {
    const { connector, calls } = destination((rs) => rs.map((r) => ({ key: r.key, ok: false, status: 503, error: "unavailable" })));
    const out = await loader(connector, false).loader.load(records(1));
    expect(out.get("1")).toMatchObject({ ok: false, error: "unavailable" });
    expect(calls).toHaveLength(3);
  });

  it("bisects a batch that failed as a whole so only the bad row fails", async () => {
    const { connector } = destination((rs) =>
      rs.some((r) => r.key === "3") ? rs.map((r) => ({ key: r.key, ok: false, status: 400, error: "bad batch" })) : rs.map((r) => ({ key: r.key, ok: true })),
    );
    const out = await loader(connector, true, 8).loader.load(records(8));
    expect([...out.entries()].filter(([, o]) => !o.ok).map(([k]) => k)).toEqual(["3"]);
  });

  it("stops bisecting when every part fails the same way (the request, not a row, is wrong)", async () => {
    const { connector, calls } = destination((rs) => rs.map((r) => ({ key: r.key, ok: false, status: 401, error: "unauthorized" })));
    const out = await loader(connector, true, 8).loader.load(records(8));
    expect([...out.values()].every((o) => !o.ok && o.error === "unauthorized")).toBe(true);
    expect(calls).toHaveLength(3);
  });

  it("classifies outcomes and bounds delays", () => {
    expect(isRetryable({ key: "a", ok: false, status: 500 })).toBe(true);
    expect(isRetryable({ key: "a", ok: false, status: 0 })).toBe(true);
    expect(isRetryable({ key: "a", ok: false, status: 422 })).toBe(false);
    expect(isRetryable({ key: "a", ok: false, status: 500, retryable: false })).toBe(false);
    const d = retryDelayMs(3, undefined, 100, 30_000);
    expect(d).toBeGreaterThanOrEqual(400);
    expect(d).toBeLessThanOrEqual(800);
    expect(retryDelayMs(0, 2, 100, 30_000)).toBe(2000);
  });

  it("caps Retry-After: a destination's 86400 s waits ENGINE_MAX_RETRY_AFTER_SECONDS at most (300 by default)", () => {
    expect(retryDelayMs(0, 86_400, 100, 30_000)).toBe(300_000);
    const before = process.env.ENGINE_MAX_RETRY_AFTER_SECONDS;
    process.env.ENGINE_MAX_RETRY_AFTER_SECONDS = "20";
    try {
      expect(retryDelayMs(0, 86_400, 100, 30_000)).toBe(20_000);
      expect(parseRetryAfter("86400")).toBe(20);
      expect(parseRetryAfter(new Date(Date.now() + 86_400_000).toUTCString())).toBe(20);
      expect(parseRetryAfter("7")).toBe(7);
    } finally {
      if (before === undefined) delete process.env.ENGINE_MAX_RETRY_AFTER_SECONDS;
      else process.env.ENGINE_MAX_RETRY_AFTER_SECONDS = before;
    }
  });

  /** One record per request, one at a time; waits over 1 s go to onLongWait. */
  const pausing = (connector: DestinationConnector, options: Partial<LoaderOptions>) =>
    new Loader({ destination: connector, config: {}, stream: tableStream("t"), batch: false, batchSize: 1, concurrency: 1, baseDelayMs: 5, maxAttempts: 3, longWaitMs: 1000, ...options });
  const tomorrow = (key: string): WriteOutcome => ({ key, ok: false, status: 429, retryAfterSeconds: 86_400, error: "tomorrow" });

  it("hands a retry wait longer than longWaitMs to onLongWait instead of sleeping; a record left unsent gets no outcome", async () => {
    const { connector, calls } = destination((rs) => rs.map((r) => (r.key === "2" ? tomorrow(r.key) : { key: r.key, ok: true })));
    const controller = new AbortController();
    const asked: number[] = [];
    const onLongWait = (ms: number) => {
      asked.push(ms);
      controller.abort(new Error("paused"));
      return true;
    };
    const out = await pausing(connector, { signal: controller.signal, onLongWait }).load(records(2));
    expect(asked).toEqual([300_000]);
    expect(out.get("1")).toMatchObject({ ok: true });
    expect(out.has("2")).toBe(false);
    expect(calls).toEqual([["1"], ["2"]]);
  });

  it("fails the records with the destination's answer when onLongWait refuses another pause", async () => {
    const { connector } = destination((rs) => rs.map((r) => tomorrow(r.key)));
    const out = await pausing(connector, { onLongWait: () => false }).load(records(2));
    expect([...out.values()].map((o) => o.error)).toEqual(["tomorrow", "tomorrow"]);
  });
});
