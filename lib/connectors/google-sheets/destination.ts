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
/** The key column: the configured one, else the sheet's first column (the reference's settings name none). */
const keyColumn = (config: Row, columns: readonly string[]) => {
  const key = typeof config.key_column === "string" && config.key_column !== "" ? config.key_column : (columns[0] ?? "");
  if (key === "") throw new ConnectorError(`The first row of "${sheetName(config)}" is empty: it must name the columns, the first being the key.`);
  return key;
};

/** The id in a spreadsheet's link (https://docs.google.com/spreadsheets/d/<id>/edit). */
export function spreadsheetIdOfLink(link: string): string | undefined {
  return /\/spreadsheets\/d\/([A-Za-z0-9_-]+)/.exec(link)?.[1];
}

/**
 * The typed settings, from the reference's fields (credentials_json, spreadsheet_link) or ours
 * (service_account, spreadsheet_id); ours win where both are set. Sets the two the hooks read.
 */
export function googleSheetsSettings(config: Row): Row {
  const link = typeof config.spreadsheet_link === "string" ? spreadsheetIdOfLink(config.spreadsheet_link) : undefined;
  const id = typeof config.spreadsheet_id === "string" && config.spreadsheet_id !== "" ? config.spreadsheet_id : link;
  const key = config.service_account !== undefined && config.service_account !== "" ? config.service_account : config.credentials_json;
  return { ...config, ...(id !== undefined ? { spreadsheet_id: id } : {}), ...(key !== undefined ? { service_account: key } : {}) };
}

const KEY_FILE_FIELDS = ["type", "project_id", "private_key_id", "private_key", "client_email", "client_id", "auth_uri", "token_uri", "auth_provider_x509_cert_url", "client_x509_cert_url", "universe_domain"];

/** The reference's form of the key file: an object of its fields, the private key secret. */
const credentialsJsonField: JsonSchema = {
  type: "object",
  title: "Service account key",
  description: "The service account's JSON key file, as an object. Share the spreadsheet with its client_email as an editor.",
  required: KEY_FILE_FIELDS,
  properties: Object.fromEntries(
    KEY_FILE_FIELDS.map((field, order) => [
      field,
      field === "type"
        ? { type: "string", title: field, description: "The key file's type: service_account.", enum: ["service_account"], order }
        : field === "private_key" || field === "private_key_id"
          ? { type: "string", title: field, description: `The key file's ${field}.`, secret: true, multiwoven_secret: true, multiline: field === "private_key", order }
          : { type: "string", title: field, description: `The key file's ${field}.`, order },
    ]),
  ),
  order: 0,
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
  const key = keyColumn(config, columns);
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
  const key = keyOf(record, keyColumn(ctx.config, state.header));
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
    connectionSpecification: {
      ...restSpecification(
      "Google Sheets",
      BASE_URL,
      {
        credentials_json: credentialsJsonField,
        spreadsheet_link: { type: "string", title: "Spreadsheet link", description: "The spreadsheet's URL (https://docs.google.com/spreadsheets/d/…).", pattern: "/spreadsheets/d/[A-Za-z0-9_-]+", order: 1 },
        // Our earlier fields, kept for connectors saved with them; they win over the two above.
        service_account: {
          ...secretField("Service account key (earlier form)", "The key file as text, under the name connectors saved before credentials_json.", 0),
          multiline: true,
          deprecated: true,
        },
        spreadsheet_id: { type: "string", title: "Spreadsheet ID", description: "The part of the spreadsheet's URL after /d/; used instead of the link when set.", pattern: "^[A-Za-z0-9_-]+$", order: 1 },
        sheet: { type: "string", title: "Sheet", description: "The sheet (tab) rows are written to; its first row names the columns.", default: "Sheet1", order: 2 },
        key_column: { type: "string", title: "Key column", description: "The column (a name in the first row) whose value identifies a row. Empty: the sheet's first column.", order: 3 },
        value_input: {
          type: "string",
          title: "Values are",
          description: "RAW stores values as given; USER_ENTERED parses them as if typed (numbers, dates, formulas).",
          enum: ["RAW", "USER_ENTERED"],
          default: "RAW",
          order: 4,
        },
      },
      [],
      ),
      // The reference's credentials_json, unless the connector was saved with service_account.
      allOf: [{ if: { required: ["service_account"] }, else: { required: ["credentials_json"] } }],
    },
    // The reference does not require the link, but nothing can be written without knowing where.
    configurationProblems: (config) =>
      googleSheetsSettings(config).spreadsheet_id === undefined
        ? [{ path: "spreadsheet_link", message: "is required: the spreadsheet's link (https://docs.google.com/spreadsheets/d/…), or its id as spreadsheet_id" }]
        : [],
  },
  settings: googleSheetsSettings,
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
    const key = keyColumn(ctx.config, columns);
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
