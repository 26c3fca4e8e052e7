// Following a Zendesk bulk job (GET /job_statuses/{id}) until it reports each record's result:
// "Created", "Updated", or "Failed" with an error and details, in the order the records were sent
// (or by `index` when a result carries one). Reference: developer.zendesk.com/api-reference
// (job statuses; users: create or update many users).
import { ConnectorError } from "../shared/errors";
import { numberField } from "../shared/config";
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
 * Follows a bulk job until Zendesk reports each user's result. A job still queued when the wait ends,
 * or one Zendesk failed as a whole, fails its records as retryable (an upsert is safe to send again).
 */
export async function settleJob(response: RestResponse, items: unknown[], ctx: RestContext & RestCalls): Promise<RecordResult[]> {
  const jobId = jobStatus(response)?.id;
  if (!jobId) throw new ConnectorError("Zendesk accepted the users without a job status id; their results cannot be read.");
  const read = async () => jobStatus(await ctx.get(`/job_statuses/${encodeURIComponent(jobId)}`)) ?? {};
  const { state, finished } = await pollJob(read, (s) => s.status === "completed" || s.status === "failed" || s.status === "killed", {
    timeoutMs: numberField(ctx.config, "job_timeout", 120) * 1000,
    signal: ctx.signal,
  });
  if (!finished) throw new ConnectorError(`Zendesk job ${jobId} was still ${state.status ?? "queued"} when the wait ended; its users will be sent again.`);
  if (state.status !== "completed") throw new ConnectorError(`Zendesk job ${jobId} ended ${state.status}${state.message ? `: ${state.message}` : ""}.`);
  const results = state.results ?? [];
  // Results come in the order sent; an `index`, when given, says which user a result is for.
  const byIndex = new Map<number, JobResult>();
  results.forEach((r, position) => byIndex.set(typeof r.index === "number" ? r.index : position, r));
  return items.map((_, i): RecordResult => {
    const result = byIndex.get(i);
    if (!result) return { ok: false, error: `job ${jobId} reported no result for this user.` };
    const failed = result.status === "Failed" || result.success === false || result.error !== undefined;
    if (!failed) return { ok: true, detail: { job_id: jobId, ...result } };
    return { ok: false, error: [result.error, result.details].filter(Boolean).join(": ") || "failed", detail: { job_id: jobId, ...result } };
  });
}
