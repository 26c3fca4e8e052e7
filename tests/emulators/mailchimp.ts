// A Mailchimp Marketing API 3.0 emulator, written from the published reference
// (mailchimp.com/developer/marketing/api: lists batch subscribe, get list, merge fields; errors as
// problem+json; fundamentals: API key over HTTP Basic, 10 simultaneous connections): 401 "API Key
// Invalid", at most 500 members per batch (400), members refused one by one in `errors`
// (email_address, error, error_code), existing members refused with ERROR_CONTACT_EXISTS unless
// update_existing, and 429 past the simultaneous-connection cap (answers can be held to make
// requests overlap). Member error wordings are ours. Tests only.
import type { ServerResponse } from "node:http";
import { json, parseBody, startEmulator, type ReceivedRequest } from "./common";

const MAX_MEMBERS = 500;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const STATUSES = new Set(["subscribed", "unsubscribed", "cleaned", "pending", "transactional"]);

interface Member {
  email_address?: string;
  status?: string;
  merge_fields?: Record<string, unknown>;
}

export async function startMailchimpEmulator(options: { apiKey: string; listId: string }) {
  const members = new Map<string, Member>();
  const state = { maxConnections: 10, holdMs: 0, open: 0 };
  const problem = (res: ServerResponse, status: number, title: string, detail: string) =>
    json(res, status, { type: "https://mailchimp.com/developer/marketing/docs/errors/", title, status, detail, instance: "emulator" }, { "content-type": "application/problem+json" });

  function batch(req: ReceivedRequest, res: ServerResponse) {
    const body = parseBody(req) as { members?: Member[]; update_existing?: boolean } | undefined;
    const list = body?.members;
    if (!Array.isArray(list)) return problem(res, 400, "Invalid Resource", "The resource submitted could not be validated: members is required.");
    if (list.length > MAX_MEMBERS) return problem(res, 400, "Invalid Resource", `You can only add or update up to ${MAX_MEMBERS} members per batch; got ${list.length}.`);
    const created: Member[] = [];
    const updated: Member[] = [];
    const errors: unknown[] = [];
    for (const m of list) {
      const email = String(m.email_address ?? "").toLowerCase();
      if (!EMAIL.test(email)) {
        errors.push({ email_address: m.email_address, error: `${String(m.email_address)} looks fake or invalid, please enter a real email address.`, error_code: "ERROR_GENERIC", field: "email_address", field_message: "" });
        continue;
      }
      if (!STATUSES.has(String(m.status))) {
        errors.push({ email_address: m.email_address, error: `Invalid status: ${String(m.status)}`, error_code: "ERROR_GENERIC", field: "status", field_message: "" });
        continue;
      }
      const existing = members.get(email);
      if (existing && !body?.update_existing) {
        errors.push({ email_address: m.email_address, error: `${email} is already a list member, do you want to update? please provide update_existing:true in the request body`, error_code: "ERROR_CONTACT_EXISTS" });
        continue;
      }
      const next = { ...existing, ...m, merge_fields: { ...existing?.merge_fields, ...m.merge_fields } };
      members.set(email, next);
      (existing ? updated : created).push(next);
    }
    json(res, 200, { new_members: created, updated_members: updated, errors, total_created: created.length, total_updated: updated.length, error_count: errors.length });
  }

  function route(req: ReceivedRequest, res: ServerResponse) {
    const url = new URL(req.url, "http://emulator");
    const list = `/3.0/lists/${options.listId}`;
    if (req.method === "GET" && url.pathname === list) return json(res, 200, { id: options.listId, name: "Emulated audience" });
    if (req.method === "GET" && url.pathname === `${list}/merge-fields`) {
      return json(res, 200, { merge_fields: [{ tag: "FNAME", name: "First Name", type: "text" }, { tag: "AGE", name: "Age", type: "number" }], list_id: options.listId, total_items: 2 });
    }
    if (req.method === "POST" && url.pathname === list) return batch(req, res);
    problem(res, 404, "Resource Not Found", "The requested resource could not be found.");
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    const [scheme, encoded] = String(req.headers.authorization ?? "").split(" ");
    const password = scheme === "Basic" ? Buffer.from(encoded ?? "", "base64").toString().split(":").slice(1).join(":") : "";
    if (password !== options.apiKey) return problem(res, 401, "API Key Invalid", "Your API key may be invalid, or you've attempted to access the wrong datacenter.");
    if (state.open >= state.maxConnections) {
      return problem(res, 429, "Too Many Requests", `You have exceeded the limit of ${state.maxConnections} simultaneous connections.`);
    }
    state.open++;
    setTimeout(() => {
      state.open--;
      route(req, res);
    }, state.holdMs);
  }

  const server = await startEmulator(handle);
  return { ...server, members, state };
}
