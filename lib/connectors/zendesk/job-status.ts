// Following a Zendesk bulk job (GET /job_statuses/{id}) until it reports each record's result:
// "Created", "Updated", or "Failed" with an error and details, in the order the records were sent
// (or by `index` when a result carries one). Reference: developer.zendesk.com/api-reference
// (job statuses; users: create or update many users).
import { ConnectorError } from "../shared/errors";
import { numberField } from "../shared/config";
import { truncate } from "@/lib/net/http";
import { pollJob } from "../rest-kit/jobs";
import type { RecordResult, RestCalls, RestContext, RestResponse } from "../rest-kit/types";

interface JobResult {
  index?: number;
  id?: number | string;
  status?: string;
  error?: string;
  details?: string;
  success?: boolean;
}

interface JobStatus {
  id?: string;
  status?: string;
  message?: string | null;
  results?: JobResult[] | null;
}

const jobStatus = (response: RestResponse): JobStatus | undefined => (response.body as { job_status?: JobStatus } | undefined)?.job_status;

/**
 * Longest server text kept of a job's message and of a result's error and details: a job's message
 * goes into every record of the job, and a server's megabytes would be copied into each.
 */
const SERVER_TEXT_LIMIT = 2 * 1024;
/** Zendesk's job ids are short tokens (V3-…); a longer one is no job id. */
const MAX_JOB_ID_LENGTH = 200;

const serverText = (value: unknown): string | undefined => (value === undefined || value === null || value === "" ? undefined : truncate(String(value), SERVER_TEXT_LIMIT));

/**
 * Follows a bulk job until Zendesk reports each user's result. A job still queued when the wait ends,
 * or one Zendesk failed as a whole, fails its records as retryable (an upsert is safe to send again).
 */
export async function settleJob(response: RestResponse, items: unknown[], ctx: RestContext & RestCalls): Promise<RecordResult[]> {
  const jobId = jobStatus(response)?.id;
  if (!jobId) throw new ConnectorError("Zendesk accepted the users without a job status id; their results cannot be read.");
  if (typeof jobId !== "string" || jobId.length > MAX_JOB_ID_LENGTH) throw new ConnectorError("Zendesk answered a job status id that is not one; the users' results cannot be read.");
  const read = async () => jobStatus(await ctx.get(`/job_statuses/${encodeURIComponent(jobId)}`)) ?? {};
  const { state, finished } = await pollJob(read, (s) => s.status === "completed" || s.status === "failed" || s.status === "killed", {
    timeoutMs: numberField(ctx.config, "job_timeout", 120) * 1000,
    signal: ctx.signal,
  });
  if (!finished) throw new ConnectorError(`Zendesk job ${jobId} was still ${state.status ?? "queued"} when the wait ended; its users will be sent again.`);
  const message = serverText(state.message);
  if (state.status !== "completed") throw new ConnectorError(`Zendesk job ${jobId} ended ${state.status}${message ? `: ${message}` : ""}.`);
  const results = state.results ?? [];
  // Results come in the order sent; an `index`, when given, says which user a result is for.
  const byIndex = new Map<number, JobResult>();
  results.forEach((r, position) => byIndex.set(typeof r.index === "number" ? r.index : position, r));
  return items.map((_, i): RecordResult => {
    const result = byIndex.get(i);
    if (!result) return { ok: false, error: `job ${jobId} reported no result for this user.` };
    const failed = result.status === "Failed" || result.success === false || result.error !== undefined;
    if (!failed) return { ok: true, detail: { job_id: jobId, ...result } };
    const error = serverText(result.error);
    const details = serverText(result.details);
    const bounded = { ...result, ...(error !== undefined ? { error } : {}), ...(details !== undefined ? { details } : {}) };
    return { ok: false, error: [error, details].filter(Boolean).join(": ") || "failed", detail: { job_id: jobId, ...bounded } };
  });
}
