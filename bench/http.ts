// 3. HTTP destination (a local receiver on 127.0.0.1, its own process): one record per request and
// batches of 100 and 500, records/s and requests/s against a bare fetch() client sending the same
// requests with the same concurrency in the same run; then with a rate limit, the achieved rate
// against the configured one, as the receiver saw it.
import type { Stream } from "@/lib/connectors/types";
import { catalogOf, createSync, runSync } from "./lib/app";
import type { BenchContext } from "./lib/context";
import { CUSTOMER_COLUMNS, query } from "./lib/pg";
import { spawnTs } from "./lib/process";

interface SinkStats {
  requests: number;
  records: number;
  first: number;
  last: number;
}

const CONCURRENCY = 4;

async function stats(base: string): Promise<SinkStats> {
  return (await fetch(`${base}/__stats`)).json() as Promise<SinkStats>;
}

/** The same requests without the engine: `records` rows in bodies of `batch` (1 = a bare object). */
async function rawClient(base: string, rows: unknown[], batch: number): Promise<number> {
  const bodies: string[] = [];
  for (let i = 0; i < rows.length; i += batch) bodies.push(JSON.stringify(batch === 1 ? rows[i] : rows.slice(i, i + batch)));
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const res = await fetch(`${base}/raw`, { method: "POST", headers: { "content-type": "application/json" }, body });
        await res.text();
        if (!res.ok) throw new Error(`sink answered ${res.status}`);
      }
    }),
  );
  return performance.now() - started;
}

function webhookStream(url: string, overrides: Partial<Stream>): Stream {
  return { name: "webhook", url, json_schema: { type: "object", additionalProperties: true }, batch_support: false, batch_size: 0, request_method: "POST", ...overrides };
}

export async function benchHttp(ctx: BenchContext): Promise<void> {
  const { args, report } = ctx;
  const sink = spawnTs("bench/lib/sink-server.ts", {});
  try {
    await sink.waitFor(/sink listening on \d+/, 30_000, "the HTTP receiver");
    const port = Number(/sink listening on (\d+)/.exec(sink.output())?.[1]);
    const base = `http://127.0.0.1:${port}`;
    const url = `${base}/hook`;
    const config = { destination_url: url, method: "POST" };

    const scenarios: { name: string; records: number; batch: number }[] = [
      { name: "per record", records: Math.min(args.rows, args.smoke ? 500 : 10_000), batch: 1 },
      { name: "batches of 100", records: Math.min(args.rows, args.smoke ? 5_000 : 100_000), batch: 100 },
      { name: "batches of 500", records: Math.min(args.rows, args.smoke ? 5_000 : 100_000), batch: 500 },
    ];
    for (const s of scenarios) {
      ctx.log(`http: ${s.name}, ${s.records.toLocaleString("en-US")} records`);
      const sample = await query(ctx.sourceUrl, `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE id <= $1 ORDER BY id`, [s.records]);
      await fetch(`${base}/__reset`);
      const rawMs = await rawClient(base, sample, s.batch);
      const rawRequests = Math.ceil(s.records / s.batch);

      const stream = webhookStream(url, s.batch > 1 ? { batch_support: true, batch_size: s.batch } : {});
      const { syncId } = await createSync({
        workspaceId: ctx.workspaceId,
        sourceUrl: ctx.sourceUrl,
        query: `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE id <= ${s.records}`,
        destination: { connectorName: "Http", config, catalog: catalogOf(stream, { request_rate_concurrency: CONCURRENCY }) },
      });
      await fetch(`${base}/__reset`);
      const run = await runSync(ctx.workspaceId, syncId);
      const got = await stats(base);
      const seconds = run.duration_ms / 1000;
      const ok = run.successful_rows === s.records && got.records === s.records;
      report.add({
        section: "http",
        name: `${s.name}: records/s`,
        value: s.records / seconds,
        unit: "rec/s",
        baseline: { name: "bare fetch", value: s.records / (rawMs / 1000), unit: "rec/s" },
        pass: ok ? undefined : false,
        target: ok ? undefined : "every record received",
        note: `${s.records.toLocaleString("en-US")} records, ${CONCURRENCY} in flight`,
      });
      report.add({
        section: "http",
        name: `${s.name}: requests/s`,
        value: got.requests / seconds,
        unit: "req/s",
        baseline: { name: "bare fetch", value: rawRequests / (rawMs / 1000), unit: "req/s" },
      });
    }

    // Rate limit: well under what the pipeline reaches unthrottled, for long enough to average out.
    const rate = args.smoke ? 50 : 100;
    const seconds = args.smoke ? 3 : 10;
    const records = Math.min(args.rows, rate * seconds);
    ctx.log(`http: rate limit ${rate}/s, ${records} records`);
    const limited = webhookStream(url, { request_rate_limit: rate, request_rate_limit_unit: "second" });
    const { syncId } = await createSync({
      workspaceId: ctx.workspaceId,
      sourceUrl: ctx.sourceUrl,
      query: `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE id <= ${records}`,
      destination: { connectorName: "Http", config, catalog: catalogOf(limited, { request_rate_concurrency: CONCURRENCY }) },
    });
    await fetch(`${base}/__reset`);
    await runSync(ctx.workspaceId, syncId);
    const got = await stats(base);
    // Arrivals per second between the first and the last request, as the receiver saw them.
    const achieved = got.requests > 1 ? (got.requests - 1) / ((got.last - got.first) / 1000) : 0;
    report.add({
      section: "http",
      name: "rate-limited, achieved rate",
      value: achieved,
      unit: "req/s",
      baseline: { name: "configured", value: rate, unit: "req/s" },
      target: "0.9× – 1.0×",
      pass: achieved <= rate * 1.01 && achieved >= rate * 0.9 && got.requests === records,
      note: `${got.requests} requests`,
    });
  } finally {
    await sink.stop();
  }
}
