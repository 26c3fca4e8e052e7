// A BigQuery query job from start to last page: jobs.insert with our own job id (so a cancel can
// name it at any time), then jobs.getQueryResults page by page (pageToken, maxResults), one page in
// memory at a time. The job carries the configured job timeout; our side stops waiting at the same
// deadline, and a cancel (the run's signal) or a deadline cancels the job on BigQuery too.
import { randomUUID } from "node:crypto";
import { ConnectorError } from "../shared/errors";
import { callApi } from "./api";
import type { BigquerySettings } from "./definition";
import type { BqField } from "./values";

export interface JobOptions {
  signal?: AbortSignal;
  /** Named STRING parameters (`@name` in the SQL). */
  params?: Record<string, string>;
  /** Rows per page asked for. */
  pageSize: number;
}

export interface Page {
  schema: BqField[];
  rows: { f: { v: unknown }[] }[];
}

/** Empty pages in a row (each with a next pageToken) accepted before the read is stopped. */
const MAX_EMPTY_PAGES = 3;

interface JobAnswer {
  jobReference?: { jobId: string; location?: string };
  status?: { state?: string; errorResult?: { message?: string; reason?: string } };
  statistics?: { query?: { schema?: { fields?: BqField[] }; statementType?: string } };
}

interface ResultsAnswer {
  jobComplete?: boolean;
  schema?: { fields?: BqField[] };
  rows?: Page["rows"];
  pageToken?: string;
}

function jobBody(s: BigquerySettings, sql: string, jobId: string, options: { dryRun?: boolean; params?: Record<string, string> }) {
  const params = Object.entries(options.params ?? {});
  return {
    jobReference: { projectId: s.projectId, jobId, ...(s.location ? { location: s.location } : {}) },
    configuration: {
      ...(options.dryRun ? { dryRun: true } : {}),
      jobTimeoutMs: String(s.queryTimeoutMs),
      query: {
        query: sql,
        useLegacySql: false,
        ...(s.datasetId ? { defaultDataset: { projectId: s.projectId, datasetId: s.datasetId } } : {}),
        ...(params.length > 0
          ? { parameterMode: "NAMED", queryParameters: params.map(([name, value]) => ({ name, parameterType: { type: "STRING" }, parameterValue: { value } })) }
          : {}),
      },
    },
  };
}

/** What BigQuery makes of `sql` without running it (a dry run: free, and it checks the SQL). */
async function dryRun(s: BigquerySettings, sql: string, signal?: AbortSignal, params?: Record<string, string>): Promise<JobAnswer> {
  return callApi<JobAnswer>(s, {
    method: "POST",
    path: `/projects/${encodeURIComponent(s.projectId)}/jobs`,
    body: jobBody(s, sql, `datasync_dry_${randomUUID()}`, { dryRun: true, params }),
    signal,
  });
}

/** The result schema of `sql` without running it. */
export async function dryRunSchema(s: BigquerySettings, sql: string, signal?: AbortSignal, params?: Record<string, string>): Promise<BqField[]> {
  return (await dryRun(s, sql, signal, params)).statistics?.query?.schema?.fields ?? [];
}

/**
 * Refuses `sql` unless BigQuery itself reads it as one SELECT (statistics.query.statementType; a
 * multi-statement script says SCRIPT and would run with the service account's grants). A second
 * guard behind modelSelect, whose tokenizer could misread some GoogleSQL text.
 */
export async function assertSelectStatement(s: BigquerySettings, sql: string, signal?: AbortSignal, params?: Record<string, string>): Promise<void> {
  const type = (await dryRun(s, sql, signal, params)).statistics?.query?.statementType;
  if (type !== "SELECT") {
    throw new ConnectorError(`The query must be a single SELECT statement: BigQuery reads it as ${type ?? "something else"}.`);
  }
}

async function cancelJob(s: BigquerySettings, jobId: string): Promise<void> {
  await callApi(s, {
    method: "POST",
    path: `/projects/${encodeURIComponent(s.projectId)}/jobs/${jobId}/cancel`,
    query: { location: s.location },
    timeoutMs: 10_000,
  }).catch(() => undefined);
}

/** Runs `sql` as a job and yields its result pages in order; the job is cancelled when left early. */
export async function* queryPages(s: BigquerySettings, sql: string, options: JobOptions): AsyncGenerator<Page> {
  const jobId = `datasync_${randomUUID().replace(/-/g, "")}`;
  const deadline = Date.now() + s.queryTimeoutMs;
  let finished = false;
  const onAbort = () => void cancelJob(s, jobId);
  try {
    const inserted = await callApi<JobAnswer>(s, {
      method: "POST",
      path: `/projects/${encodeURIComponent(s.projectId)}/jobs`,
      body: jobBody(s, sql, jobId, { params: options.params }),
      signal: options.signal,
    });
    if (inserted.status?.errorResult) throw new ConnectorError(`BigQuery: ${inserted.status.errorResult.message ?? "the query failed"}`);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const location = inserted.jobReference?.location ?? s.location;
    let pageToken: string | undefined;
    let emptyPages = 0;
    for (;;) {
      const left = deadline - Date.now();
      const answer = await callApi<ResultsAnswer>(s, {
        method: "GET",
        path: `/projects/${encodeURIComponent(s.projectId)}/queries/${jobId}`,
        query: {
          location,
          maxResults: options.pageSize,
          pageToken,
          // Long polling: BigQuery answers when the job is done or after this long.
          timeoutMs: Math.max(1000, Math.min(10_000, left)),
          "formatOptions.useInt64Timestamp": true,
        },
        signal: options.signal,
        timeoutMs: Math.max(1000, Math.min(10_000, left)) + 30_000,
      });
      if (!answer.jobComplete) {
        if (Date.now() >= deadline) throw new ConnectorError(`The query did not finish within ${s.queryTimeoutMs / 1000} s (query_timeout); BigQuery was asked to cancel it.`, "timeout");
        continue;
      }
      // The job is done: a reader that leaves early has nothing to cancel.
      finished = true;
      yield { schema: answer.schema?.fields ?? [], rows: answer.rows ?? [] };
      pageToken = answer.pageToken;
      if (!pageToken) break;
      // BigQuery's pages hold rows; a run of empty ones that keep linking on is not a real result.
      emptyPages = (answer.rows ?? []).length === 0 ? emptyPages + 1 : 0;
      if (emptyPages > MAX_EMPTY_PAGES) throw new ConnectorError("BigQuery kept answering empty result pages that link to more; the read was stopped.");
    }
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    if (!finished) await cancelJob(s, jobId);
  }
}
