// Google Sheets (API v4): rows are upserted by a key column. Before each write the connector reads
// the sheet's first row (the column names) and its key column (which row holds which key), grows
// the grid when new keys need rows past its end (spreadsheets.batchUpdate appendDimension), then
// writes every record's row with one values:batchUpdate: existing keys in place, new keys after
// the last row. Columns a record leaves out are not touched (null cells are skipped); a null value
// clears its cell. Auth: a service account key (JWT bearer, the spreadsheets scope); share the
// spreadsheet with its client_email. Writes are refused whole by Sheets, so the record at fault is
// isolated by the engine's bisection; what can be checked ahead (unknown column, a cell over 50,000
// characters) fails the record alone. Reference: developers.google.com/sheets/api (values.batchGet,
// values.batchUpdate, spreadsheets.get, spreadsheets.batchUpdate AppendDimensionRequest, usage limits)
// and developers.google.com/identity/protocols/oauth2/service-account.
import type { JsonSchema, Row, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { exactJson } from "../shared/values";
import { defineRestDestination } from "../rest-kit/define";
import { restSpecification, secretField } from "../rest-kit/fields";
import type { RestCalls, RestContext, RestResponse } from "../rest-kit/types";

const BASE_URL = "https://sheets.googleapis.com";
/** Google's limit on one cell's text. */
const MAX_CELL_CHARS = 50_000;

const spreadsheetId = (config: Row) => {
  const id = typeof config.spreadsheet_id === "string" ? config.spreadsheet_id.trim() : "";
  if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new ConnectorError(`"${id}" is not a spreadsheet id (the part of its URL after /d/).`);
  return id;
};
const sheetName = (config: Row) => (typeof config.sheet === "string" && config.sheet !== "" ? config.sheet : "Sheet1");
const keyColumn = (config: Row) => {
  const key = typeof config.key_column === "string" ? config.key_column : "";
  if (key === "") throw new ConnectorError("The configuration is missing the key column.");
  return key;
};
/** A sheet name as A1 notation quotes it. */
const quoted = (name: string) => `'${name.replace(/'/g, "''")}'`;

/** Column number (0-based) to its letters: 0 → A, 26 → AA. */
export function columnLetters(index: number): string {
  let n = index + 1;
  let letters = "";
  while (n > 0) {
    const rest = (n - 1) % 26;
    letters = String.fromCharCode(65 + rest) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}

const path = (config: Row, rest = "") => `/v4/spreadsheets/${spreadsheetId(config)}${rest}`;

async function header(calls: RestCalls, config: Row): Promise<string[]> {
  const response = await calls.get(path(config, `/values/${encodeURIComponent(`${quoted(sheetName(config))}!1:1`)}`));
  const row = (response.body as { values?: unknown[][] } | undefined)?.values?.[0] ?? [];
  return row.map((v) => String(v ?? ""));
}

interface SheetState {
  header: string[];
  rows: Map<string, number>;
  next: number;
}

function keyOf(record: WriteRecord, key: string): string {
  const value = record.payload[key];
  if (value === null || value === undefined || value === "") throw new ConnectorError(`The record has no ${key}, the key column rows are matched on.`);
  return String(value);
}

/** Reads the column names and the key column, and grows the grid for the new keys. */
async function prepare(ctx: RestContext & RestCalls, records: WriteRecord[]): Promise<SheetState> {
  const { config } = ctx;
  const name = sheetName(config);
  const meta = await ctx.get(path(config), { fields: "sheets.properties" });
  const sheets = (meta.body as { sheets?: { properties?: { sheetId?: number; title?: string; gridProperties?: { rowCount?: number } } }[] } | undefined)?.sheets ?? [];
  const sheet = sheets.find((s) => s.properties?.title === name)?.properties;
  if (!sheet) throw new ConnectorError(`The spreadsheet has no sheet named "${name}".`);
  const columns = await header(ctx, config);
  const key = keyColumn(config);
  const at = columns.indexOf(key);
  if (at < 0) throw new ConnectorError(`The first row of "${name}" has no column "${key}".`);
  const letter = columnLetters(at);
  const keys = await ctx.get(path(config, `/values/${encodeURIComponent(`${quoted(name)}!${letter}2:${letter}`)}`));
  const rows = new Map<string, number>();
  const values = (keys.body as { values?: unknown[][] } | undefined)?.values ?? [];
  values.forEach((row, i) => {
    const value = row[0];
    if (value !== undefined && value !== "" && !rows.has(String(value))) rows.set(String(value), i + 2);
  });
  const next = values.length + 2;
  const fresh = new Set(records.filter((r) => r.action !== "delete").flatMap((r) => (r.payload[key] === null || r.payload[key] === undefined ? [] : [String(r.payload[key])])).filter((k) => !rows.has(k)));
  const missing = next - 1 + fresh.size - (sheet.gridProperties?.rowCount ?? 0);
  if (missing > 0) {
    await ctx.send({ method: "POST", path: path(config, ":batchUpdate"), body: { requests: [{ appendDimension: { sheetId: sheet.sheetId, dimension: "ROWS", length: missing } }] } });
  }
  return { header: columns, rows, next };
}

function cell(value: unknown, column: string): unknown {
  if (value === undefined) return null;
  if (value === null) return "";
  const out = typeof value === "object" ? exactJson(value) : value;
  if (typeof out === "string" && out.length > MAX_CELL_CHARS) {
    throw new ConnectorError(`Your input contains more than the maximum of ${MAX_CELL_CHARS} characters in a single cell (column ${column}).`);
  }
  return out;
}

function rowOf(record: WriteRecord, ctx: RestContext): unknown {
  const state = ctx.prepared as SheetState;
  const key = keyOf(record, keyColumn(ctx.config));
  const unknown = Object.keys(record.payload).filter((k) => !state.header.includes(k));
  if (unknown.length > 0) throw new ConnectorError(`The sheet's first row has no column ${unknown.map((k) => `"${k}"`).join(", ")}.`);
  const values = state.header.map((column) => cell(record.payload[column], column));
  let row = state.rows.get(key);
  if (row === undefined) {
    row = state.next++;
    state.rows.set(key, row);
  }
  return { range: `${quoted(sheetName(ctx.config))}!A${row}`, majorDimension: "ROWS", values: [values] };
}

export const googleSheetsDestination = defineRestDestination({
  definition: {
    name: "GoogleSheets",
    title: "Google Sheets",
    category: "Productivity Tools",
    icon: "/icons/google-sheets.svg",
    documentationUrl: "https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/batchUpdate",
    connectionSpecification: restSpecification(
      "Google Sheets",
      BASE_URL,
      {
        service_account: {
          ...secretField("Service account key", "The service account's JSON key file (client_email, private_key, token_uri). Share the spreadsheet with its client_email as an editor."),
          multiline: true,
        },
        spreadsheet_id: { type: "string", title: "Spreadsheet ID", description: "The part of the spreadsheet's URL after /d/.", pattern: "^[A-Za-z0-9_-]+$", order: 1 },
        sheet: { type: "string", title: "Sheet", description: "The sheet (tab) rows are written to; its first row names the columns.", default: "Sheet1", order: 2 },
        key_column: { type: "string", title: "Key column", description: "The column (a name in the first row) whose value identifies a row.", order: 3 },
        value_input: {
          type: "string",
          title: "Values are",
          description: "RAW stores values as given; USER_ENTERED parses them as if typed (numbers, dates, formulas).",
          enum: ["RAW", "USER_ENTERED"],
          default: "RAW",
          order: 4,
        },
      },
      ["service_account", "spreadsheet_id", "key_column"],
    ),
  },
  baseUrl: BASE_URL,
  auth: { kind: "jwt_bearer", field: "service_account", scope: "https://www.googleapis.com/auth/spreadsheets" },
  limits: { maxRecords: 500, maxBytes: 2 * 1024 * 1024 },
  // Write requests: 60 per minute per user per project.
  rate: { limit: 60, unit: "minute", concurrency: 1 },
  writes: {
    upsert: {
      prepare,
      item: rowOf,
      request: (items, ctx) => ({
        method: "POST",
        path: path(ctx.config, "/values:batchUpdate"),
        body: { valueInputOption: ctx.config.value_input === "USER_ENTERED" ? "USER_ENTERED" : "RAW", data: items },
      }),
      results: (response, items) => {
        const responses = (response.body as { responses?: { updatedRange?: string }[] } | undefined)?.responses;
        return Array.isArray(responses) && responses.length === items.length ? responses.map((r) => ({ ok: true, detail: r })) : undefined;
      },
    },
  },
  check: {
    request: (config) => ({ method: "GET", path: path(config), query: { fields: "properties.title,sheets.properties.title" } }),
    describe: (response, config) => {
      const body = response.body as { properties?: { title?: string }; sheets?: { properties?: { title?: string } }[] } | undefined;
      const found = (body?.sheets ?? []).some((s) => s.properties?.title === sheetName(config));
      const title = body?.properties?.title ?? "?";
      return found ? `Connected to spreadsheet "${title}".` : `Connected to spreadsheet "${title}", but it has no sheet named "${sheetName(config)}".`;
    },
  },
  async discover(ctx) {
    const columns = (await header(ctx, ctx.config)).filter((c) => c !== "");
    const key = keyColumn(ctx.config);
    if (!columns.includes(key)) throw new ConnectorError(`The first row of "${sheetName(ctx.config)}" has no column "${key}".`);
    const properties: Record<string, JsonSchema> = Object.fromEntries(columns.map((c) => [c, { type: ["string", "number", "boolean", "null"], title: c }]));
    return [{ name: sheetName(ctx.config), json_schema: { type: "object", properties, required: [key] }, primary_key: [key] }];
  },
  errorText: (response: RestResponse) => {
    const error = (response.body as { error?: { status?: string; message?: string } } | undefined)?.error;
    return error?.message ? `${error.status ? `${error.status}: ` : ""}${error.message}` : undefined;
  },
  // Quotas are per minute: a throttled write waits for the next minute.
  retryAfter: (response) => (response.status === 429 ? 60 : undefined),
});
