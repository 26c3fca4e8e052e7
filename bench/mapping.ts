// The JSON path's per-row map stage, measured alone (issue 37 target 2): each row's JSON parsed and
// mapped as lib/engine/send-batch.ts does, with the sync section's template + static mapping, once
// with every template rendered by Liquid (before) and once compiled to plain functions (after).
// The two alternate in rounds in one process, so other load on the machine hits both alike; the
// figure is their ratio. No database: `npm run bench -- --only mapping` runs in seconds.
import { isDeepStrictEqual } from "node:util";
import { compileMapping, type CompiledMapping } from "@/lib/sync-rules/mapping";
import { JSON_PATH_MAPPING } from "./lib/app";
import type { BenchArgs } from "./lib/args";
import type { Report } from "./lib/report";

const ROUNDS = 7;

/** Rows as the source reads them (bench/lib/pg.ts fillCustomers), as the engine holds them: JSON text. */
function customerJson(n: number): string[] {
  const states = ["CA", "NY", "TX", "WA", "FL", "IL", "MA", "CO"];
  const last = ["Smith", "Garcia", "Chen", "Okafor", "Müller", "Rossi", "Kowalski", "Tanaka"];
  const first = ["Ada", "Grace", "Linus", "Margaret", "Alan", "Barbara", "Ken", "Radia"];
  return Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    return JSON.stringify({
      id: i,
      state: states[i % 8],
      last_name: last[Math.floor(i / 8) % 8],
      first_name: first[Math.floor(i / 64) % 8],
      // bigint travels as its exact text (values.ts).
      phone_number: String(5550000000 + i),
      email_address: `Customer${i}@Example.com`,
      updated_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    });
  });
}

/** Rows per second of one pass over every row; the payloads are kept so the work cannot be skipped. */
function pass(mapping: CompiledMapping, rows: string[], now: Date, sink: unknown[]): number {
  const t0 = performance.now();
  for (let i = 0; i < rows.length; i++) sink[i] = mapping.map(JSON.parse(rows[i]) as Record<string, unknown>, now);
  return rows.length / ((performance.now() - t0) / 1000);
}

/** The same without JSON.parse: the mapping's own cost. */
function mapOnly(mapping: CompiledMapping, rows: Record<string, unknown>[], now: Date, sink: unknown[]): number {
  const t0 = performance.now();
  for (let i = 0; i < rows.length; i++) sink[i] = mapping.map(rows[i], now);
  return rows.length / ((performance.now() - t0) / 1000);
}

export function benchMapping(args: BenchArgs, report: Report, log: (line: string) => void): void {
  const n = Math.min(args.rows, args.smoke ? 10_000 : 200_000);
  const rows = customerJson(n);
  const now = new Date();
  const before = compileMapping(JSON_PATH_MAPPING, { liquidOnly: true });
  const after = compileMapping(JSON_PATH_MAPPING);
  const a: unknown[] = [];
  const b: unknown[] = [];
  const parsed = rows.map((r) => JSON.parse(r) as Record<string, unknown>);
  const best = { before: 0, after: 0, mapBefore: 0, mapAfter: 0 };
  log(`mapping: ${n.toLocaleString("en-US")} rows, ${ROUNDS} alternating rounds`);
  for (let round = 0; round < ROUNDS; round++) {
    best.mapBefore = Math.max(best.mapBefore, mapOnly(before, parsed, now, a));
    best.mapAfter = Math.max(best.mapAfter, mapOnly(after, parsed, now, b));
    best.before = Math.max(best.before, pass(before, rows, now, a));
    best.after = Math.max(best.after, pass(after, rows, now, b));
  }
  // The compiled mapping is only faster if it maps the same: every payload compared.
  const same = a.every((payload, i) => isDeepStrictEqual(payload, b[i]));
  const plain = `${after.plainTemplates.plain} of ${after.plainTemplates.total} templates compiled`;
  report.add({
    section: "mapping",
    name: "JSON path map stage, rows parsed + mapped, compiled",
    value: best.after,
    unit: "rows/s",
    baseline: { name: "Liquid only", value: best.before, unit: "rows/s" },
    target: "faster, same payloads",
    pass: same && best.after > best.before,
    note: plain,
  });
  report.add({
    section: "mapping",
    name: "mapping alone (rows already parsed), compiled",
    value: best.mapAfter,
    unit: "rows/s",
    baseline: { name: "Liquid only", value: best.mapBefore, unit: "rows/s" },
    target: "faster",
    pass: best.mapAfter > best.mapBefore,
  });
  const us = (rowsPerSecond: number) => `${(1e6 / rowsPerSecond).toFixed(2)} µs`;
  report.note(
    `map stage per row: ${us(best.before)} with Liquid, ${us(best.after)} compiled (JSON.parse included); mapping alone ` +
      `${us(best.mapBefore)} and ${us(best.mapAfter)}: best of ${ROUNDS} alternating rounds over ${n.toLocaleString("en-US")} rows, ` +
      "ratios within one run (the machine is shared, absolute figures move with its load)",
  );
}
