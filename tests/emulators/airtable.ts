// An Airtable Web API emulator, written from the published reference (airtable.com/developers/web/
// api: update multiple records with performUpsert, create records, get base schema, rate limits,
// errors): Bearer personal access tokens (401 AUTHENTICATION_REQUIRED), at most 10 records per
// request (422), a request refused whole for an unknown field or a value its field cannot take
// (422 UNKNOWN_FIELD_NAME / INVALID_VALUE_FOR_COLUMN), 5 requests per second per base, past which
// the base answers 429 for 30 seconds. The 422 type for too many records is our reading of the
// docs (they state the limit, not the type). Tests only.
import type { ServerResponse } from "node:http";
import { bearerToken, FixedWindow, json, parseBody, startEmulator, type ReceivedRequest } from "./common";

interface Field {
  id: string;
  name: string;
  type: string;
}

export const AIRTABLE_TABLE = {
  id: "tblContacts0000001",
  name: "Contacts",
  primaryFieldId: "fldEmail",
  fields: [
    { id: "fldEmail", name: "Email", type: "email" },
    { id: "fldName", name: "Name", type: "singleLineText" },
    { id: "fldAge", name: "Age", type: "number" },
    { id: "fldScore", name: "Score", type: "formula" },
  ] as Field[],
};

const MAX_RECORDS = 10;

type Fields = Record<string, unknown>;

/** `perSecond`: Airtable's 5 requests per second per base, unless a test that is not about rate limits raises it. */
export async function startAirtableEmulator(options: { token: string; baseId: string; lockoutMs?: number; perSecond?: number }) {
  const window = new FixedWindow(options.perSecond ?? 5, 1000);
  const state = { lockedUntil: 0, lockoutMs: options.lockoutMs ?? 30_000 };
  const rows: { id: string; fields: Fields }[] = [];
  let nextId = 1;
  const error = (res: ServerResponse, status: number, type: string, message?: string) => json(res, status, { error: message === undefined ? type : { type, message } });

  /** Why Airtable would refuse these records (it refuses the whole request). */
  function refusal(records: { fields?: Fields }[]): [string, string] | undefined {
    for (const record of records) {
      for (const [name, value] of Object.entries(record.fields ?? {})) {
        const field = AIRTABLE_TABLE.fields.find((f) => f.name === name);
        if (!field) return ["UNKNOWN_FIELD_NAME", `Unknown field name: "${name}"`];
        if (field.type === "formula") return ["INVALID_VALUE_FOR_COLUMN", `Field "${name}" cannot accept a value because the field is computed`];
        if (field.type === "number" && value !== null && typeof value !== "number") return ["INVALID_VALUE_FOR_COLUMN", `Field "${name}" cannot accept the provided value`];
      }
    }
    return undefined;
  }

  function write(req: ReceivedRequest, res: ServerResponse) {
    const body = parseBody(req) as { records?: { fields?: Fields }[]; performUpsert?: { fieldsToMergeOn?: string[] } } | undefined;
    const records = body?.records;
    if (!Array.isArray(records)) return error(res, 422, "INVALID_REQUEST_MISSING_FIELDS", "Could not find field \"records\" in the request body");
    if (records.length > MAX_RECORDS) return error(res, 422, "INVALID_RECORDS", `You can only create or update up to ${MAX_RECORDS} records per request; got ${records.length}.`);
    const refused = refusal(records);
    if (refused) return error(res, 422, ...refused);
    const merge = req.method === "PATCH" ? body?.performUpsert?.fieldsToMergeOn : undefined;
    if (req.method === "PATCH" && (!Array.isArray(merge) || merge.length === 0 || merge.some((m) => !AIRTABLE_TABLE.fields.some((f) => f.name === m)))) {
      return error(res, 422, "INVALID_REQUEST_UNKNOWN", "Invalid request: performUpsert.fieldsToMergeOn must name 1 to 3 fields of the table");
    }
    const created: string[] = [];
    const updated: string[] = [];
    const out = records.map((record) => {
      const fields = record.fields ?? {};
      const match = merge ? rows.find((r) => merge.every((m) => r.fields[m] === fields[m])) : undefined;
      const row = match ?? { id: `rec${String(nextId++).padStart(14, "0")}`, fields: {} };
      Object.assign(row.fields, fields);
      if (match) updated.push(row.id);
      else {
        rows.push(row);
        created.push(row.id);
      }
      return { id: row.id, createdTime: new Date().toISOString(), fields: row.fields };
    });
    json(res, 200, merge ? { records: out, createdRecords: created, updatedRecords: updated } : { records: out });
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    if (bearerToken(req) !== options.token) return error(res, 401, "AUTHENTICATION_REQUIRED", "Authentication required");
    const url = new URL(req.url, "http://emulator");
    const base = /^\/v0\/(?:meta\/bases\/)?(app[A-Za-z0-9]+)\//.exec(url.pathname)?.[1];
    if (base !== options.baseId) {
      return error(res, 403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", "Invalid permissions, or the requested model was not found. Check that both your user and your token have the required permissions, and that the model names and/or ids are correct.");
    }
    // 5 requests per second per base (perSecond); past it, 30 seconds of 429 (requests meanwhile do not help).
    const now = Date.now();
    if (now < state.lockedUntil || !window.hit(base, now).allowed) {
      if (now >= state.lockedUntil) state.lockedUntil = now + state.lockoutMs;
      return json(res, 429, { errors: [{ error: "RATE_LIMIT_REACHED", message: "Rate limit exceeded. Please try again later" }] });
    }
    if (req.method === "GET" && url.pathname === `/v0/meta/bases/${base}/tables`) return json(res, 200, { tables: [AIRTABLE_TABLE] });
    const table = decodeURIComponent(url.pathname.slice(`/v0/${base}/`.length));
    if (table !== AIRTABLE_TABLE.name && table !== AIRTABLE_TABLE.id) return error(res, 404, "TABLE_NOT_FOUND", `Could not find table ${table} in application ${base}`);
    if (req.method === "PATCH" || req.method === "POST") return write(req, res);
    return error(res, 404, "NOT_FOUND");
  }

  const server = await startEmulator(handle);
  return {
    ...server,
    rows,
    window,
    state,
    reset() {
      rows.length = 0;
      window.reset();
      state.lockedUntil = 0;
    },
  };
}
