// An Iterable API emulator, written from the published reference (api.iterable.com/api/docs:
// users/bulkUpdate, users/getFields; the {msg, code, params} answer): the Api-Key header (401
// BadApiKey otherwise), bodies over 4 MB refused (413), each user with a malformed email or a data
// field whose type differs from the project's listed in failedUpdates (invalidEmails,
// invalidDataEmails) of a 200 answer, and 10 requests per second per project, past which 429.
// Message wordings of the refusals are ours. Tests only.
import type { ServerResponse } from "node:http";
import { FixedWindow, json, parseBody, startEmulator, type ReceivedRequest } from "./common";

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** The project's user fields and their types, as getFields lists them. */
export const ITERABLE_FIELDS: Record<string, string> = { email: "string", userId: "string", firstName: "string", age: "long", vip: "boolean", "profile.city": "string" };

function typeOf(value: unknown): string {
  if (typeof value === "number") return Number.isInteger(value) ? "long" : "double";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "string") return "string";
  return Array.isArray(value) ? "nested" : "object";
}

interface BulkUser {
  email?: string;
  userId?: string;
  dataFields?: Record<string, unknown>;
}

export async function startIterableEmulator(options: { apiKey: string }) {
  const window = new FixedWindow(10, 1000);
  const users = new Map<string, Record<string, unknown>>();
  const answer = (res: ServerResponse, status: number, msg: string, code: string) => json(res, status, { msg, code, params: null });

  function bulkUpdate(req: ReceivedRequest, res: ServerResponse) {
    if (Buffer.byteLength(req.body) > MAX_BODY_BYTES) return answer(res, 413, "Request body must be smaller than 4 MB", "BadParams");
    const list = (parseBody(req) as { users?: BulkUser[] } | undefined)?.users;
    if (!Array.isArray(list)) return answer(res, 400, "Could not parse the request body: users is required", "BadJsonBody");
    const failedUpdates: Record<string, string[]> = { invalidEmails: [], invalidUserIds: [], invalidDataEmails: [], invalidDataUserIds: [] };
    let successCount = 0;
    for (const user of list) {
      const byEmail = user.email !== undefined;
      const id = String(user.email ?? user.userId ?? "");
      if (byEmail && !EMAIL.test(id)) {
        failedUpdates.invalidEmails.push(id);
        continue;
      }
      if (!byEmail && id === "") {
        failedUpdates.invalidUserIds.push(id);
        continue;
      }
      const mismatch = Object.entries(user.dataFields ?? {}).some(([k, v]) => v !== null && ITERABLE_FIELDS[k] !== undefined && ITERABLE_FIELDS[k] !== typeOf(v));
      if (mismatch) {
        failedUpdates[byEmail ? "invalidDataEmails" : "invalidDataUserIds"].push(id);
        continue;
      }
      users.set(id, { ...(users.get(id) ?? {}), ...user.dataFields });
      successCount++;
    }
    json(res, 200, {
      successCount,
      failCount: list.length - successCount,
      createdFields: [],
      filteredOutFields: [],
      invalidEmails: failedUpdates.invalidEmails,
      invalidUserIds: failedUpdates.invalidUserIds,
      failedUpdates,
    });
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    const key = req.headers["api-key"];
    if (key !== options.apiKey) return answer(res, 401, "Invalid API key", "BadApiKey");
    if (!window.hit(key).allowed) return answer(res, 429, "Rate limit exceeded: 10 requests/second per project", "RateLimitExceeded");
    if (req.method === "GET" && req.url === "/api/users/getFields") return json(res, 200, { fields: ITERABLE_FIELDS });
    if (req.method === "POST" && req.url === "/api/users/bulkUpdate") return bulkUpdate(req, res);
    answer(res, 404, `No route for ${req.method} ${req.url}`, "NotFound");
  }

  const server = await startEmulator(handle);
  return { ...server, users, window };
}
