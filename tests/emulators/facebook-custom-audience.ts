// A Meta Marketing API emulator for customer-list custom audiences, written from the published
// reference (developers.facebook.com: Custom Audience Users (POST and DELETE
// /{custom_audience_id}/users, at most 10,000 people a request, payload {schema, data}, the answer
// audience_id / session_id / num_received / num_invalid_entries / invalid_entry_samples), Custom
// Audience fields (id, name, account_id, subtype), Customer List Custom Audiences hashing (SHA-256
// hex for the personal keys), Graph API error objects and rate limiting (code 80003 with the
// X-Business-Use-Case-Usage header's estimated_time_to_regain_access in minutes)). Bearer tokens;
// 190 OAuthException for an unknown one. Entries Meta counts invalid here: a personal key's value
// that is not a SHA-256 hex digest, a MADID that is not a device id. `throttle` makes the next
// requests answer as Meta throttles (or as a 429 with Retry-After, as a gateway before the Graph
// API may). Wordings are ours. Tests only.
import type { ServerResponse } from "node:http";
import { bearerToken, json, parseBody, startEmulator, type ReceivedRequest } from "./common";

const MAX_PEOPLE = 10_000;
const KEYS = new Set(["EMAIL", "PHONE", "GEN", "DOBY", "DOBM", "DOBD", "LN", "FN", "FI", "CT", "ST", "ZIP", "COUNTRY", "MADID", "EXTERN_ID", "PAGEUID", "LOOKALIKE_VALUE"]);
const HASHED = new Set(["EMAIL", "PHONE", "GEN", "DOBY", "DOBM", "DOBD", "LN", "FN", "FI", "CT", "ST", "ZIP", "COUNTRY"]);
const SHA256_HEX = /^[0-9a-f]{64}$/;
const MADID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface Throttle {
  /** How many of the next requests are refused. */
  count: number;
  /** "business": HTTP 400 with code 80003 and the usage header; "http429": 429 with Retry-After. */
  kind: "business" | "http429";
  /** Minutes (business) or seconds (http429) to wait. */
  wait: number;
}

export async function startFacebookAudienceEmulator(options: { accessToken: string; audienceId: string; adAccountId: string }) {
  /** The audience's people: each one's row as sent (hashed values), by its first value. */
  const members = new Map<string, string[]>();
  // maxSamples: invalid_entry_samples holds samples, not necessarily every invalid entry.
  const state: { throttle: Throttle | undefined; maxSamples: number } = { throttle: undefined, maxSamples: Number.POSITIVE_INFINITY };
  const graphError = (res: ServerResponse, status: number, code: number, message: string, type = "OAuthException", headers: Record<string, string> = {}) =>
    json(res, status, { error: { message, type, code, fbtrace_id: "AemulatorTrace" } }, headers);

  function users(req: ReceivedRequest, res: ServerResponse, adding: boolean) {
    const payload = (parseBody(req) as { payload?: { schema?: unknown; data?: unknown } } | undefined)?.payload;
    const schema = typeof payload?.schema === "string" ? [payload.schema] : payload?.schema;
    if (!Array.isArray(schema) || !Array.isArray(payload?.data)) return graphError(res, 400, 100, "(#100) Param payload must contain schema and data", "GraphMethodException");
    const unknown = schema.find((k) => !KEYS.has(String(k)));
    if (unknown !== undefined) return graphError(res, 400, 100, `(#100) Invalid schema key: ${String(unknown)}`, "GraphMethodException");
    const data = payload.data as unknown[];
    if (data.length > MAX_PEOPLE) return graphError(res, 400, 100, `(#100) Too many entries: at most ${MAX_PEOPLE} per request`, "GraphMethodException");
    const samples: Record<string, string> = {};
    let invalid = 0;
    for (const row of data) {
      if (!Array.isArray(row) || row.length !== schema.length) return graphError(res, 400, 100, "(#100) Each data row must have one value per schema key", "GraphMethodException");
      const reason = row
        .map((value, i) => {
          const key = String(schema[i]);
          const text = String(value);
          if (text === "") return undefined;
          if (HASHED.has(key) && !SHA256_HEX.test(text)) return [text, `${key} is not hashed with SHA-256`];
          if (key === "MADID" && !MADID.test(text)) return [text, "MADID is not a mobile advertiser id"];
          return undefined;
        })
        .find((r) => r !== undefined);
      if (reason) {
        invalid++;
        if (Object.keys(samples).length < state.maxSamples) samples[reason[0]] = reason[1];
        continue;
      }
      const id = row.map(String).find((v) => v !== "") ?? "";
      if (adding) members.set(id, row.map(String));
      else members.delete(id);
    }
    json(res, 200, { audience_id: options.audienceId, session_id: String(Date.now()), num_received: data.length, num_invalid_entries: invalid, invalid_entry_samples: samples });
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    const url = new URL(req.url, "http://emulator");
    if (bearerToken(req) !== options.accessToken && url.searchParams.get("access_token") !== options.accessToken) {
      return graphError(res, 400, 190, "Invalid OAuth access token - Cannot parse access token");
    }
    const throttle = state.throttle;
    if (throttle && throttle.count > 0) {
      throttle.count--;
      if (throttle.kind === "http429") return json(res, 429, { error: { message: "Too Many Requests", code: 4 } }, { "retry-after": String(throttle.wait) });
      const usage = { [options.adAccountId]: [{ type: "custom_audience", call_count: 100, total_cputime: 20, total_time: 30, estimated_time_to_regain_access: throttle.wait }] };
      return graphError(res, 400, 80003, "There have been too many calls to this ad-account. Wait a bit and try again.", "OAuthException", {
        "x-business-use-case-usage": JSON.stringify(usage),
      });
    }
    const match = /^\/v\d+\.0\/(\d+)(\/users)?$/.exec(url.pathname);
    if (!match || match[1] !== options.audienceId) return graphError(res, 400, 100, "(#100) Unsupported request: object does not exist or cannot be loaded", "GraphMethodException");
    if (!match[2] && req.method === "GET") {
      return json(res, 200, { id: options.audienceId, name: "Emulated customers", account_id: options.adAccountId, subtype: "CUSTOM" });
    }
    if (match[2] && req.method === "POST") return users(req, res, true);
    if (match[2] && req.method === "DELETE") return users(req, res, false);
    graphError(res, 400, 100, "(#100) Unsupported request method", "GraphMethodException");
  }

  const server = await startEmulator(handle);
  return { ...server, members, state };
}
