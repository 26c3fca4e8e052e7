// The JSON path's per-row map stage, measured alone (issue 37 target 2): each row's JSON parsed and
// mapped as lib/engine/send-batch.ts does, with the sync section's template + static mapping, once
// with every template rendered by Liquid (before) and once compiled to plain functions (after).
// The two alternate in rounds in one process, so other load on the machine hits both alike; the
// figure is their ratio. No database: `npm run bench -- --only mapping` runs in seconds.
import { isDeepStrictEqual } from "node:util";
import { compileMapping, type CompiledMapping } from "@/lib/sync-config/mapping";
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

export function benchMapping(args: BenchArgs, report: Report, log: (line: string) => void): void {
  const n = Math.min(args.rows, args.smoke ? 10_000 : 200_000);
  const rows = customerJson(n);
  const now = new Date();
  const before = compileMapping(JSON_PATH_MAPPING, { liquidOnly: true });
  const after = compileMapping(JSON_PATH_MAPPING);
  const a: unknown[] = [];
  const b: unknown[] = [];
  const best = { before: 0, after: 0 };
  log(`mapping: ${n.toLocaleString("en-US")} rows, ${ROUNDS} alternating rounds`);
  for (let round = 0; round < ROUNDS; round++) {
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
  report.note(
    `mapping per row: ${(1e6 / best.before).toFixed(2)} µs with Liquid, ${(1e6 / best.after).toFixed(2)} µs compiled ` +
      `(best of ${ROUNDS} alternating rounds over ${n.toLocaleString("en-US")} rows, JSON.parse included; ratio within one run, the machine is shared)`,
  );
}
