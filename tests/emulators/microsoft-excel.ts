// A Microsoft Graph v1.0 emulator for the Excel workbook API, written from learn.microsoft.com/graph:
// drive (GET /me/drive), driveItem list children (value + @odata.nextLink paging), workbook
// worksheets list, worksheet tables list, table columns list, tablerowcollection add ({index,
// values}: 201 with the added rows), the error resource ({error: {code, message}}) and the
// throttling guidance (429 TooManyRequests with Retry-After). Bearer tokens only (401
// InvalidAuthenticationToken). A rows/add whose rows do not match the table's width is refused whole
// (400 InvalidArgument); so is a cell over Excel's 32,767-character limit (the code and sentence are
// our reading: the docs state the limit, not the error). Tests only.
import type { ServerResponse } from "node:http";
import { bearerToken, FixedWindow, json, parseBody, startEmulator, type ReceivedRequest } from "./common";

export interface EmulatedTable {
  id: string;
  name: string;
  columns: string[];
  rows: unknown[][];
}
export interface EmulatedWorkbook {
  id: string;
  name: string;
  sheets: { name: string; tables: EmulatedTable[] }[];
}

/** Excel's limit on one cell's text. */
const MAX_CELL_CHARS = 32_767;
const DRIVE_ID = "b!x8emulatorDrive01";

export function excelFiles(): { workbooks: EmulatedWorkbook[]; others: { id: string; name: string }[] } {
  return {
    workbooks: [
      {
        id: "01EMULATORCONTACTS",
        name: "Contacts.xlsx",
        sheets: [
          { name: "People", tables: [{ id: "{0A1B2C3D-0001}", name: "PeopleTable", columns: ["Email", "Name", "Score"], rows: [] }] },
          { name: "Notes", tables: [] },
        ],
      },
      { id: "01EMULATORBUDGET", name: "Budget, 2026.xlsm", sheets: [{ name: "Q1", tables: [{ id: "{0A1B2C3D-0002}", name: "Lines", columns: ["Item", "Amount"], rows: [] }] }] },
    ],
    others: [
      { id: "01EMULATORREADME", name: "readme.txt" },
      { id: "01EMULATORLEGACY", name: "old.xls" },
    ],
  };
}

export async function startExcelEmulator(options: { token: string; perMinute?: number; pageSize?: number; retryAfterSeconds?: number }) {
  const window = new FixedWindow(options.perMinute ?? Number.POSITIVE_INFINITY, 60_000);
  let files = excelFiles();
  const error = (res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) =>
    json(res, status, { error: { code, message, innerError: { date: new Date().toISOString(), "request-id": "emulator" } } }, headers);

  function children(res: ServerResponse, url: URL, base: string) {
    const all = [...files.workbooks.map((w) => ({ id: w.id, name: w.name })), ...files.others].map((f) => ({ ...f, file: { mimeType: "application/octet-stream" } }));
    const size = options.pageSize ?? Number(url.searchParams.get("$top") ?? 200);
    const from = Number(url.searchParams.get("$skiptoken") ?? 0);
    const next = from + size < all.length ? `${base}${url.pathname}?$top=${size}&$skiptoken=${from + size}` : undefined;
    json(res, 200, { value: all.slice(from, from + size), ...(next ? { "@odata.nextLink": next } : {}) });
  }

  function addRows(req: ReceivedRequest, res: ServerResponse, table: EmulatedTable) {
    const body = parseBody(req) as { index?: number | null; values?: unknown } | undefined;
    const values = body?.values;
    const invalid = "The argument is invalid or missing or has an incorrect format.";
    if (!Array.isArray(values) || values.length === 0 || values.some((r) => !Array.isArray(r) || r.length !== table.columns.length)) return error(res, 400, "InvalidArgument", invalid);
    for (const row of values as unknown[][]) {
      for (const v of row) {
        if (v !== null && typeof v === "object") return error(res, 400, "InvalidArgument", invalid);
        if (typeof v === "string" && v.length > MAX_CELL_CHARS) return error(res, 400, "InvalidArgument", invalid);
      }
    }
    const index = table.rows.length;
    table.rows.push(...(values as unknown[][]));
    json(res, 201, { "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#workbookTableRow", "@odata.id": `/tables/${table.id}/rows/itemAt(index=${index})`, index, values });
  }

  function handle(req: ReceivedRequest, res: ServerResponse, base: string) {
    if (bearerToken(req) !== options.token) return error(res, 401, "InvalidAuthenticationToken", "Access token validation failure. Invalid audience.");
    if (!window.hit(options.token).allowed) {
      return error(res, 429, "TooManyRequests", "Please retry after", { "retry-after": String(options.retryAfterSeconds ?? 3) });
    }
    const url = new URL(req.url, "http://emulator");
    const path = decodeURIComponent(url.pathname);
    if (req.method === "GET" && path === "/v1.0/me/drive") return json(res, 200, { id: DRIVE_ID, driveType: "business", owner: { user: { displayName: "Ada Lovelace" } } });
    if (req.method === "GET" && path === `/v1.0/drives/${DRIVE_ID}/root/children`) return children(res, url, base);
    const m = /^\/v1\.0\/drives\/([^/]+)\/items\/([^/]+)\/workbook\/(.*)$/.exec(path);
    if (!m || m[1] !== DRIVE_ID) return error(res, 404, "itemNotFound", "The resource could not be found.");
    const book = files.workbooks.find((w) => w.id === m[2]);
    if (!book) return error(res, 404, "itemNotFound", "The resource could not be found.");
    const rest = m[3];
    if (req.method === "GET" && rest === "worksheets") return json(res, 200, { value: book.sheets.map((s, i) => ({ id: `{SHEET-${i}}`, name: s.name, position: i, visibility: "Visible" })) });
    const sheetTables = /^worksheets\/([^/]+)\/tables$/.exec(rest);
    if (req.method === "GET" && sheetTables) {
      const sheet = book.sheets.find((s) => s.name === sheetTables[1]);
      if (!sheet) return error(res, 404, "ItemNotFound", "The requested resource doesn't exist.");
      return json(res, 200, { value: sheet.tables.map((t) => ({ id: t.id, name: t.name, showHeaders: true, showTotals: false, style: "TableStyleMedium2" })) });
    }
    const tableCall = /^tables\/([^/]+)\/(columns|rows\/add)$/.exec(rest);
    const table = tableCall ? book.sheets.flatMap((s) => s.tables).find((t) => t.id === tableCall[1] || t.name === tableCall[1]) : undefined;
    if (!tableCall || !table) return error(res, 404, "ItemNotFound", "The requested resource doesn't exist.");
    if (req.method === "GET" && tableCall[2] === "columns") return json(res, 200, { value: table.columns.map((name, index) => ({ id: String(index + 1), index, name, values: [[name]] })) });
    if (req.method === "POST" && tableCall[2] === "rows/add") return addRows(req, res, table);
    return error(res, 405, "MethodNotAllowed", "The method is not allowed for this resource.");
  }

  let baseUrl = "";
  const server = await startEmulator((req, res) => handle(req, res, baseUrl));
  baseUrl = server.url;
  return {
    ...server,
    window,
    get files() {
      return files;
    },
    table(id: string): EmulatedTable {
      return files.workbooks.flatMap((w) => w.sheets.flatMap((s) => s.tables)).find((t) => t.id === id)!;
    },
    reset() {
      files = excelFiles();
      window.reset();
    },
  };
}
