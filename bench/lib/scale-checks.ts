// What the scale section checks after a round, all with SQL on the application database (and the
// destination table): each sync ran exactly once and succeeded, each run recorded each of its rows
// once, the destination holds every row, and no workspace ran more than its share at once.
import { env } from "@/lib/settings/env";
import { query } from "./pg";

export interface RoundOutcome {
  /** Syncs whose number of runs is not exactly one (a run lost or run twice). */
  syncsNotOnce: number;
  /** Runs not ended `success` with every row sent. */
  runsNotComplete: number;
  /** Records in the runs' blocks, and distinct (sync, key) pairs among them. */
  records: number;
  distinctRecords: number;
  /** States (sync_state_entries: rows and state blocks) of the round's syncs. */
  states: number;
  destinationRows: number;
  /** The most runs of one workspace running at once, from the runs' started_at … finished_at. */
  maxPerWorkspace: number;
  /** Runs claimed more than once (attempts > 1). */
  reclaimed: number;
  /** pg-boss jobs sent for the round's runs (1 per run, plus one per hand-back: share, busy lock, reaper). */
  jobs: number;
  /** First created_at to last finished_at of the round's runs, ms. */
  spanMs: number;
  /** Each run's workspace and finish time (ms after the first created_at), in finish order. */
  finishes: { workspaceId: number; atMs: number }[];
  /** Each workspace's first start, ms after the first created_at. */
  firstStart: Map<number, number>;
}

export async function checkRound(options: {
  appUrl: string;
  destinationUrl: string;
  table: string;
  syncIds: number[];
  runIds: number[];
  rows: number;
  /** Runs of a killed worker: their span includes the time before a reaper handed them on. */
  excluded: number[];
}): Promise<RoundOutcome> {
  const { appUrl, syncIds, runIds, rows } = options;
  const one = async <T extends Record<string, unknown>>(sql: string, values: unknown[]) =>
    (await query<T>(appUrl, sql, values))[0];
  const { not_once } = await one<{ not_once: number }>(
    `SELECT count(*)::int AS not_once FROM unnest($1::int[]) s(id)
      WHERE (SELECT count(*) FROM sync_runs r WHERE r.sync_id = s.id) <> 1`,
    [syncIds],
  );
  const { incomplete, reclaimed } = await one<{ incomplete: number; reclaimed: number }>(
    `SELECT count(*) FILTER (WHERE status <> 'success' OR total_rows <> $2 OR successful_rows <> $2 OR failed_rows <> 0)::int AS incomplete,
            count(*) FILTER (WHERE attempts > 1)::int AS reclaimed
       FROM sync_runs WHERE id = ANY($1::int[])`,
    [runIds, rows],
  );
  const missing =
    runIds.length -
    (await one<{ n: number }>("SELECT count(*)::int AS n FROM sync_runs WHERE id = ANY($1::int[])", [runIds]))
      .n;
  const rec = await one<{ records: number; distinct_records: number }>(
    `SELECT count(*)::int AS records, count(DISTINCT (b.sync_id, k))::int AS distinct_records
       FROM sync_record_blocks b CROSS JOIN LATERAL unnest(string_to_array(b.keys, E'\\n')) k
      WHERE b.sync_id = ANY($1::int[])`,
    [syncIds],
  );
  const { states } = await one<{ states: number }>(
    "SELECT count(*)::int AS states FROM sync_state_entries WHERE sync_id = ANY($1::int[])",
    [syncIds],
  );
  const [{ n: destinationRows }] = await query<{ n: number }>(
    options.destinationUrl,
    `SELECT count(*)::int AS n FROM ${options.table}`,
  );
  const { max_per_workspace } = await one<{ max_per_workspace: number }>(
    `WITH r AS (SELECT id, workspace_id, started_at, finished_at FROM sync_runs WHERE id = ANY($1::int[]) AND NOT id = ANY($2::int[]))
     SELECT coalesce(max(n), 0)::int AS max_per_workspace FROM (
       SELECT a.id, count(*) AS n FROM r a JOIN r b ON b.workspace_id = a.workspace_id AND b.started_at <= a.started_at AND b.finished_at > a.started_at
       GROUP BY a.id) x`,
    [runIds, options.excluded],
  );
  const schema = env.PGBOSS_SCHEMA;
  const { jobs } = await one<{ jobs: number }>(
    `SELECT count(*)::int AS jobs FROM (SELECT data FROM ${schema}.job WHERE name = 'sync-run' UNION ALL SELECT data FROM ${schema}.archive WHERE name = 'sync-run') j
      WHERE (j.data->>'runId')::int = ANY($1::int[])`,
    [runIds],
  );
  const times = await query<{
    workspace_id: number;
    finished_ms: number;
    started_ms: number;
    span_ms: number;
  }>(
    appUrl,
    `WITH r AS (SELECT * FROM sync_runs WHERE id = ANY($1::int[])), t0 AS (SELECT min(created_at) AS t FROM r)
     SELECT workspace_id, EXTRACT(EPOCH FROM (finished_at - t0.t))::float8 * 1000 AS finished_ms,
            EXTRACT(EPOCH FROM (started_at - t0.t))::float8 * 1000 AS started_ms,
            (SELECT EXTRACT(EPOCH FROM (max(finished_at) - min(created_at)))::float8 * 1000 FROM r) AS span_ms
       FROM r, t0 ORDER BY finished_at`,
    [runIds],
  );
  const firstStart = new Map<number, number>();
  for (const t of times)
    firstStart.set(t.workspace_id, Math.min(firstStart.get(t.workspace_id) ?? Infinity, t.started_ms));
  return {
    syncsNotOnce: not_once,
    runsNotComplete: incomplete + missing,
    records: rec.records,
    distinctRecords: rec.distinct_records,
    states,
    destinationRows,
    maxPerWorkspace: max_per_workspace,
    reclaimed,
    jobs,
    spanMs: times[0]?.span_ms ?? 0,
    finishes: times.map((t) => ({ workspaceId: t.workspace_id, atMs: t.finished_ms })),
    firstStart,
  };
}

/**
 * At the moment half of the round's runs had ended: each workspace's ended runs over its fair part
 * (half of its own runs). A plain FIFO queue, fed workspace by workspace, gives the last workspaces 0.
 */
export function halfTimeShares(
  finishes: RoundOutcome["finishes"],
  perWorkspace: Map<number, number>,
): Map<number, number> {
  const half = finishes.slice(0, Math.ceil(finishes.length / 2));
  const done = new Map<number, number>();
  for (const f of half) done.set(f.workspaceId, (done.get(f.workspaceId) ?? 0) + 1);
  return new Map([...perWorkspace].map(([ws, n]) => [ws, (done.get(ws) ?? 0) / (n / 2)]));
}
