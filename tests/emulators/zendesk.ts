// A Zendesk Support API v2 emulator, written from the published reference
// (developer.zendesk.com/api-reference/ticketing: users "Create or update many users" and
// "Show self", organizations "Create or update organization", tickets create, update and list by
// external_id, job statuses; introduction: basic authentication with email/token and an API
// token, error bodies {error, description, details}; rate limits: requests per minute by plan,
// 429 with Retry-After).
// Users are matched by external_id, then email; a bulk request answers a queued job status that
// reports "working" once and then "completed" with one result per user in the order sent
// (Created, Updated, or Failed with error and details). Validation wordings are ours. Tests only.
import type { ServerResponse } from "node:http";
import { FixedWindow, json, parseBody, startEmulator, type ReceivedRequest } from "./common";

const MAX_BULK = 100;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const STATUSES = new Set(["new", "open", "pending", "hold", "solved", "closed"]);
const PRIORITIES = new Set(["urgent", "high", "normal", "low"]);

type Row = Record<string, unknown>;

interface Job {
  id: string;
  polls: number;
  results: Row[];
}

export async function startZendeskEmulator(options: { email: string; token: string }) {
  const users = new Map<number, Row>();
  const organizations = new Map<number, Row>();
  const tickets = new Map<number, Row>();
  const jobs = new Map<string, Job>();
  // `jobEnd`: how a finished job is answered instead (a hostile server's failed job with a long message).
  const state: { nextId: number; limiter: FixedWindow; retryAfter: string; jobEnd?: Row } = { nextId: 1000, limiter: new FixedWindow(700, 60_000), retryAfter: "2" };
  const newId = () => state.nextId++;

  const invalid = (res: ServerResponse, details: Record<string, string>) =>
    json(res, 422, {
      error: "RecordInvalid",
      description: "Record validation errors",
      details: Object.fromEntries(Object.entries(details).map(([field, description]) => [field, [{ description, error: "InvalidValue" }]])),
    });
  const notFound = (res: ServerResponse) => json(res, 404, { error: "RecordNotFound", description: "Not found" });

  function upsertUser(input: Row): Row {
    const match = [...users.values()].find((u) =>
      input.external_id !== undefined && input.external_id !== null ? u.external_id === input.external_id : String(u.email ?? "").toLowerCase() === String(input.email ?? "").toLowerCase(),
    );
    if (input.email !== undefined && input.email !== null && !EMAIL.test(String(input.email))) {
      return { status: "Failed", error: match ? "UserUpdateError" : "UserCreateError", details: `Email: ${String(input.email)} is not properly formatted` };
    }
    if (!match && (typeof input.name !== "string" || input.name.trim() === "")) {
      return { status: "Failed", error: "UserCreateError", details: "Name: is too short (minimum one character)" };
    }
    const next: Row = { role: "end-user", ...match, ...input, id: match?.id ?? newId() };
    users.set(next.id as number, next);
    return { id: next.id, status: match ? "Updated" : "Created", ...(next.email ? { email: next.email } : {}), ...(next.external_id ? { external_id: next.external_id } : {}) };
  }

  function usersBulk(req: ReceivedRequest, res: ServerResponse) {
    const list = (parseBody(req) as { users?: Row[] } | undefined)?.users;
    if (!Array.isArray(list)) return json(res, 400, { error: "InvalidEndpoint", description: "users is required" });
    if (list.length > MAX_BULK) return json(res, 400, { error: "TooManyValues", description: `At most ${MAX_BULK} users a request; got ${list.length}.` });
    const id = `V3-${jobs.size + 1}`;
    jobs.set(id, { id, polls: 0, results: list.map(upsertUser) });
    json(res, 200, { job_status: { id, url: `/api/v2/job_statuses/${id}.json`, status: "queued", total: list.length, progress: null, message: null, results: null } });
  }

  function jobStatus(id: string, res: ServerResponse) {
    const job = jobs.get(id);
    if (!job) return notFound(res);
    job.polls++;
    const done = job.polls > 1;
    json(res, 200, {
      job_status: {
        id,
        status: done ? "completed" : "working",
        total: job.results.length,
        progress: done ? job.results.length : 0,
        message: done ? "Completed" : null,
        results: done ? job.results : null,
        ...(done ? state.jobEnd : {}),
      },
    });
  }

  function organizationUpsert(req: ReceivedRequest, res: ServerResponse) {
    const input = (parseBody(req) as { organization?: Row } | undefined)?.organization ?? {};
    const match = [...organizations.values()].find((o) => (input.id !== undefined && o.id === input.id) || (input.external_id !== undefined && o.external_id === input.external_id));
    if (input.id !== undefined && !match) return notFound(res);
    if (!match && (typeof input.name !== "string" || input.name === "")) return invalid(res, { name: "Name: cannot be blank" });
    const taken = [...organizations.values()].some((o) => o !== match && input.name !== undefined && String(o.name).toLowerCase() === String(input.name).toLowerCase());
    if (taken) return invalid(res, { name: "Name: has already been taken" });
    const next = { ...match, ...input, id: match?.id ?? newId() };
    organizations.set(next.id as number, next);
    json(res, match ? 200 : 201, { organization: next });
  }

  function ticketErrors(input: Row, creating: boolean): Record<string, string> {
    const errors: Record<string, string> = {};
    if (creating && !(input.comment as Row | undefined)?.body) errors.description = "Description: cannot be blank";
    if (input.status !== undefined && !STATUSES.has(String(input.status))) errors.status = `Status: ${String(input.status)} is not a valid status`;
    if (input.priority !== undefined && input.priority !== null && !PRIORITIES.has(String(input.priority))) errors.priority = `Priority: ${String(input.priority)} is not valid`;
    if (input.requester_id !== undefined && input.requester_id !== null && !users.has(input.requester_id as number)) errors.requester = "Requester: is invalid";
    return errors;
  }

  function ticketWrite(req: ReceivedRequest, res: ServerResponse, id?: number) {
    const input = (parseBody(req) as { ticket?: Row } | undefined)?.ticket ?? {};
    const existing = id === undefined ? undefined : tickets.get(id);
    if (id !== undefined && !existing) return notFound(res);
    const errors = ticketErrors(input, !existing);
    if (Object.keys(errors).length > 0) return invalid(res, errors);
    const { comment, ...rest } = input;
    const next: Row = { status: "new", ...existing, ...rest, id: existing?.id ?? newId() };
    if (!existing) next.description = (comment as Row).body;
    next.comments = [...((existing?.comments as unknown[]) ?? []), ...(comment ? [comment] : [])];
    tickets.set(next.id as number, next);
    json(res, existing ? 200 : 201, { ticket: next });
  }

  function route(req: ReceivedRequest, res: ServerResponse) {
    const path = new URL(req.url, "http://emulator").pathname.replace(/\.json$/, "");
    if (req.method === "GET" && path === "/api/v2/users/me") return json(res, 200, { user: { id: 1, name: "Emulated Agent", email: options.email, role: "admin" } });
    if (req.method === "POST" && path === "/api/v2/users/create_or_update_many") return usersBulk(req, res);
    const job = /^\/api\/v2\/job_statuses\/([^/]+)$/.exec(path);
    if (req.method === "GET" && job) return jobStatus(decodeURIComponent(job[1]), res);
    if (req.method === "POST" && path === "/api/v2/organizations/create_or_update") return organizationUpsert(req, res);
    if (req.method === "POST" && path === "/api/v2/tickets") return ticketWrite(req, res);
    if (req.method === "GET" && path === "/api/v2/tickets") {
      // External ids need not be unique: every ticket with it is listed.
      const externalId = new URL(req.url, "http://emulator").searchParams.get("external_id");
      const found = [...tickets.values()].filter((t) => externalId === null || t.external_id === externalId);
      return json(res, 200, { tickets: found, count: found.length, next_page: null, previous_page: null });
    }
    const ticket = /^\/api\/v2\/tickets\/(\d+)$/.exec(path);
    if (req.method === "PUT" && ticket) return ticketWrite(req, res, Number(ticket[1]));
    json(res, 404, { error: "InvalidEndpoint", description: "Not found" });
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    const [scheme, encoded] = String(req.headers.authorization ?? "").split(" ");
    const decoded = scheme === "Basic" ? Buffer.from(encoded ?? "", "base64").toString() : "";
    const colon = decoded.indexOf(":");
    if (decoded.slice(0, colon) !== `${options.email}/token` || decoded.slice(colon + 1) !== options.token) {
      return json(res, 401, { error: "Couldn't authenticate you" });
    }
    if (!state.limiter.hit(options.email).allowed) {
      return json(res, 429, { error: "APIRateLimitExceeded", description: "Number of allowed API requests per minute exceeded" }, { "retry-after": state.retryAfter });
    }
    route(req, res);
  }

  const server = await startEmulator(handle);
  return { ...server, users, organizations, tickets, jobs, state };
}
