// The sync badge's "needs attention" as SQL, for the syncs list's needs_attention filter and its count.
import "server-only";
import { sql, type RawBuilder } from "kysely";
import { ENDED_STATUSES, STOPPED_ERRORS } from "@/lib/sync-rules/run-outcome";

/**
 * syncTruth's `attention` (lib/sync-rules/run-outcome.ts) as a condition on the syncs row s, so that
 * a list filtered by it, and its count, cover the whole workspace and not one page. Not disabled, and
 * failing, or its latest run waits for approval, or its latest general run that ended failed or had
 * rows refused without anyone stopping it. Never NULL (a sync without runs is false, so NOT keeps it).
 * attention.test.ts checks it against syncTruth case by case.
 */
export const needsAttention = (): RawBuilder<boolean> => {
  const latestStatus = sql`(SELECT r.status FROM sync_runs r WHERE r.sync_id = s.id ORDER BY r.created_at DESC, r.id DESC LIMIT 1)`;
  const lastEnded = sql`SELECT e.status, e.failed_rows, e.canceled_by, e.error FROM sync_runs e
    WHERE e.sync_id = s.id AND e.sync_run_type = 'general' AND e.status IN (${sql.join(ENDED_STATUSES.map((v) => sql.lit(v)))})
    ORDER BY e.created_at DESC, e.id DESC LIMIT 1`;
  const stopped = sql.join(STOPPED_ERRORS.map((e) => sql`${e}`));
  return sql<boolean>`(s.status <> 'disabled' AND (
    s.status IN ('failed', 'aborted')
    OR ${latestStatus} IS NOT DISTINCT FROM 'needs_approval'
    OR EXISTS (SELECT 1 FROM (${lastEnded}) e WHERE e.canceled_by IS NULL AND (e.error IS NULL OR e.error NOT IN (${stopped}))
      AND (e.status = 'failed' OR (e.status = 'success' AND e.failed_rows > 0)))))`;
};
