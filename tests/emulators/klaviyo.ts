// A Klaviyo API emulator, written from the published reference (developers.klaviyo.com and the
// klaviyo/openapi stable specs: Bulk Import Profiles, Get Bulk Import Profiles Job, Get Errors for
// Bulk Import Profiles Job, Get Accounts; the JSON:API error object; rate limits): the
// "Klaviyo-API-Key" authorization and the revision header (401 / 400 otherwise), at most 10,000
// profiles (400) and 5 MB (413) per job, jobs that answer 202 and complete after a poll, import
// errors whose source.pointer names the profile, cursor pages of at most 100 errors, and a burst
// window answered with 429 and Retry-After. Detail wordings are ours. Tests only.
import type { ServerResponse } from "node:http";
import { FixedWindow, json, parseBody, startEmulator, type ReceivedRequest } from "./common";

const MAX_PROFILES = 10_000;
const MAX_BODY_BYTES = 5 * 1024 * 1024;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

interface Job {
  id: string;
  polls: number;
  total: number;
  errors: { pointer: string; detail: string }[];
}

export async function startKlaviyoEmulator(options: { apiKey: string; pollsToComplete?: number }) {
  const window = new FixedWindow(10, 1000);
  const profiles = new Map<string, Record<string, unknown>>();
  const jobs = new Map<string, Job>();
  const state = { pollsToComplete: options.pollsToComplete ?? 1 };
  let nextJob = 1;
  let origin = "";
  const errors = (res: ServerResponse, status: number, code: string, title: string, detail: string, headers: Record<string, string> = {}) =>
    json(res, status, { errors: [{ id: `err-${status}`, status, code, title, detail, source: { pointer: "/data/" } }] }, headers);

  function createJob(req: ReceivedRequest, res: ServerResponse) {
    if (Buffer.byteLength(req.body) > MAX_BODY_BYTES) return errors(res, 413, "payload_too_large", "Payload too large.", "The maximum allowed payload size is 5MB.");
    const body = parseBody(req) as { data?: { type?: string; attributes?: { profiles?: { data?: { attributes?: Record<string, unknown> }[] } } } } | undefined;
    const list = body?.data?.attributes?.profiles?.data;
    if (body?.data?.type !== "profile-bulk-import-job" || !Array.isArray(list)) return errors(res, 400, "invalid", "Invalid input.", "data.attributes.profiles.data is required.");
    if (list.length > MAX_PROFILES) return errors(res, 400, "invalid", "Invalid input.", `Accepts up to ${MAX_PROFILES} profiles per request; got ${list.length}.`);
    const job: Job = { id: `job${nextJob++}`, polls: 0, total: list.length, errors: [] };
    list.forEach((p, i) => {
      const a = p.attributes ?? {};
      if (a.email !== undefined && !EMAIL.test(String(a.email))) {
        job.errors.push({ pointer: `/data/attributes/profiles/data/${i}/attributes/email`, detail: `Invalid email address: ${String(a.email)}` });
        return;
      }
      const key = String(a.email ?? a.external_id ?? a.phone_number);
      profiles.set(key, { ...(profiles.get(key) ?? {}), ...a });
    });
    jobs.set(job.id, job);
    json(res, 202, { data: { type: "profile-bulk-import-job", id: job.id, attributes: { status: "queued", total_count: job.total, completed_count: 0, failed_count: 0 } } });
  }

  function jobState(job: Job) {
    // The pollsToComplete-th read of the job finds it complete.
    const done = job.polls + 1 >= state.pollsToComplete;
    job.polls++;
    return {
      data: {
        type: "profile-bulk-import-job",
        id: job.id,
        attributes: done
          ? { status: "complete", total_count: job.total, completed_count: job.total - job.errors.length, failed_count: job.errors.length }
          : { status: "processing", total_count: job.total, completed_count: 0, failed_count: 0 },
      },
    };
  }

  function importErrors(job: Job, url: URL, res: ServerResponse) {
    const size = Math.min(100, Number(url.searchParams.get("page[size]") ?? 20));
    const from = Number(url.searchParams.get("page[cursor]") ?? 0);
    const page = job.errors.slice(from, from + size).map((e, i) => ({
      type: "import-error",
      id: `${job.id}-e${from + i}`,
      attributes: { code: "invalid", title: "Invalid input.", detail: e.detail, source: { pointer: e.pointer }, original_payload: null },
    }));
    const next = from + size < job.errors.length ? `${origin}${url.pathname}?page[size]=${size}&page[cursor]=${from + size}` : null;
    json(res, 200, { data: page, links: { self: `${origin}${url.pathname}`, next } });
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    origin ||= `http://${req.headers.host}`;
    const auth = req.headers.authorization;
    if (auth !== `Klaviyo-API-Key ${options.apiKey}`) return errors(res, 401, "not_authenticated", "Authentication credentials were not provided.", "Missing or invalid private key.");
    if (!req.headers.revision) return errors(res, 400, "invalid", "Invalid input.", "The revision header is required.");
    if (!window.hit(options.apiKey).allowed) return errors(res, 429, "throttled", "Request was throttled.", "Request was throttled. Expected available in 1 second.", { "retry-after": "1" });
    const url = new URL(req.url, "http://emulator");
    if (req.method === "GET" && url.pathname === "/api/accounts") {
      return json(res, 200, { data: [{ type: "account", id: "EMU123", attributes: { contact_information: { organization_name: "Emulated Co" } } }] });
    }
    if (req.method === "POST" && url.pathname === "/api/profile-bulk-import-jobs") return createJob(req, res);
    const match = /^\/api\/profile-bulk-import-jobs\/([^/]+)(\/import-errors)?$/.exec(url.pathname);
    const job = match ? jobs.get(match[1]) : undefined;
    if (req.method === "GET" && job) return match?.[2] ? importErrors(job, url, res) : json(res, 200, jobState(job));
    errors(res, 404, "not_found", "Not found.", `No route or object for ${req.method} ${url.pathname}.`);
  }

  const server = await startEmulator(handle);
  return { ...server, profiles, jobs, window, state };
}
