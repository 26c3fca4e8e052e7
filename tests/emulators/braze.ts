// A Braze REST API emulator, written from the published reference (braze.com/docs/api: user track,
// user attributes object, user delete, errors and responses, rate limits): Bearer REST API keys
// (401 otherwise), at most 75 attributes objects per /users/track request and 50 ids per
// /users/delete (400), objects without an identifier or with a malformed value listed as non-fatal
// errors ({type, input_array, index}) in a 201 "success", update-only objects never creating a
// profile, and a per-key window answered with 429 and X-RateLimit-Limit/-Remaining/-Reset (epoch
// seconds). Message wordings of the fatal errors are ours. Tests only.
import type { ServerResponse } from "node:http";
import { bearerToken, FixedWindow, json, parseBody, startEmulator, type ReceivedRequest } from "./common";

const MAX_ATTRIBUTES = 75;
const MAX_DELETES = 50;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type Attributes = Record<string, unknown>;

export async function startBrazeEmulator(options: { apiKey: string }) {
  const window = new FixedWindow(3000, 3000);
  const users = new Map<string, Attributes>();

  function minorError(object: Attributes): string | undefined {
    if (!object.external_id && !object.email && !object.braze_id && !object.user_alias) return "'external_id', 'braze_id', 'user_alias', 'email' or 'phone' is required";
    if (object.dob !== undefined && object.dob !== null && !DATE.test(String(object.dob))) return `'dob' must be a date in YYYY-MM-DD format, got '${String(object.dob)}'`;
    return undefined;
  }

  function track(body: { attributes?: Attributes[]; events?: unknown[]; purchases?: unknown[] } | undefined, res: ServerResponse, headers: Record<string, string>) {
    const attributes = body?.attributes ?? [];
    if (attributes.length === 0 && !body?.events?.length && !body?.purchases?.length) {
      return json(res, 400, { message: "Valid data must be provided in the 'attributes', 'events', or 'purchases' fields." }, headers);
    }
    if (attributes.length > MAX_ATTRIBUTES) return json(res, 400, { message: `Too many attributes objects: ${attributes.length} (at most ${MAX_ATTRIBUTES} per request).` }, headers);
    const errors: unknown[] = [];
    let processed = 0;
    attributes.forEach((object, index) => {
      const type = minorError(object);
      if (type) return errors.push({ type, input_array: "attributes", index });
      processed++;
      const { _update_existing_only: updateOnly, ...fields } = object;
      const id = String(fields.external_id ?? fields.email);
      if (updateOnly === true && !users.has(id)) return;
      users.set(id, { ...(users.get(id) ?? {}), ...fields });
    });
    json(res, 201, { message: "success", attributes_processed: processed, ...(errors.length > 0 ? { errors } : {}) }, headers);
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    const key = bearerToken(req);
    if (key !== options.apiKey) return json(res, 401, { message: "Unknown or missing REST API key." });
    const hit = window.hit(key);
    const headers = {
      "x-ratelimit-limit": String(window.max),
      "x-ratelimit-remaining": String(hit.remaining),
      "x-ratelimit-reset": String(Math.ceil((Date.now() + hit.resetMs) / 1000)),
    };
    if (!hit.allowed) return json(res, 429, { message: "Too Many Requests" }, headers);
    const body = parseBody(req) as Record<string, unknown> | undefined;
    if (req.method === "POST" && req.url === "/users/track") return track(body as Parameters<typeof track>[0], res, headers);
    if (req.method === "POST" && req.url === "/users/delete") {
      const ids = Array.isArray(body?.external_ids) ? (body.external_ids as unknown[]).map(String) : [];
      if (ids.length > MAX_DELETES) return json(res, 400, { message: `Too many external_ids: ${ids.length} (at most ${MAX_DELETES} per request).` }, headers);
      const deleted = ids.filter((id) => users.delete(id)).length;
      return json(res, 201, { message: "success", deleted }, headers);
    }
    json(res, 404, { message: "Not Found" }, headers);
  }

  const server = await startEmulator(handle);
  return { ...server, users, window };
}
