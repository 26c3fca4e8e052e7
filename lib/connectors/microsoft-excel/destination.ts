// Microsoft Excel (Microsoft Graph v1.0 workbook API): a stream is a worksheet of a workbook in the
// signed-in user's OneDrive root, named "<file>, <sheet>" as the reference names it, and records are
// appended to the first table of that sheet with tables/{id}/rows/add, up to 500 rows a request.
// Before each write the connector finds the drive, the file, the sheet's table and its columns
// (each record becomes a row in the table's column order). Graph refuses a request whole (400 with
// an error code), so the engine's bisection pins the error on its record; a column the table lacks
// or a value a cell cannot hold (an object, a list, a number past Excel's 15 significant digits)
// fails the record before sending. Text that
// Excel would read as a formula (=, +, -, @ first) is written with a leading apostrophe, so a
// source value never runs as a formula. Auth: a Graph access token (Files.ReadWrite) as Bearer.
// Throttling: 429 with Retry-After, honoured by the engine. Reference: learn.microsoft.com/graph
// (drive: get, list children; workbook: list worksheets, list tables, list columns, table rows add;
// throttling guidance; error responses).
import type { JsonSchema, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { JsonNumber, markedNumber, nonFiniteText } from "../shared/values";
import { exactNumber } from "../rest-kit/values";
import { defineRestDestination } from "../rest-kit/define";
import { restSpecification, secretField } from "../rest-kit/fields";
import type { RestCalls, RestContext, RestResponse } from "../rest-kit/types";

const BASE_URL = "https://graph.microsoft.com";
/** Workbook formats the Graph workbook API opens (not the legacy .xls). */
const WORKBOOK = /\.(xlsx|xlsm)$/i;
/** Pages of a drive folder listing read at most. */
const MAX_LISTING_PAGES = 50;
/** Significant digits an Excel cell keeps. */
const MAX_DIGITS = 15;
/** Text Excel reads as a formula when it starts a cell. */
const FORMULA_START = /^[=+\-@]/;

interface DriveItem {
  id: string;
  name: string;
}
interface Table {
  id: string;
  name: string;
}
interface Target {
  drive: string;
  item: string;
  table: string;
  columns: string[];
}

const seg = (s: string) => encodeURIComponent(s);

/** "<file>, <sheet>": the file name is everything before the last ", ". */
export function splitStreamName(name: string): { file: string; sheet: string } {
  const at = name.lastIndexOf(", ");
  if (at <= 0) throw new ConnectorError(`"${name}" is not a Microsoft Excel stream ("<file>, <sheet>"); discover the connector again.`);
  return { file: name.slice(0, at), sheet: name.slice(at + 2) };
}

async function driveId(calls: RestCalls): Promise<string> {
  const drive = (await calls.get("/v1.0/me/drive")).body as { id?: string } | undefined;
  if (!drive?.id) throw new ConnectorError("Microsoft Graph answered no drive for this token (GET /me/drive).");
  return drive.id;
}

/** The workbooks of the drive's root folder, following @odata.nextLink (on our base URL only). */
async function workbooks(calls: RestCalls, drive: string): Promise<DriveItem[]> {
  const out: DriveItem[] = [];
  let path: string | undefined = `/v1.0/drives/${seg(drive)}/root/children?$select=id,name,file&$top=200`;
  for (let page = 0; path && page < MAX_LISTING_PAGES; page++) {
    const body = (await calls.get(path)).body as { value?: DriveItem[]; "@odata.nextLink"?: string } | undefined;
    out.push(...(body?.value ?? []).filter((f) => WORKBOOK.test(f.name)));
    const next = body?.["@odata.nextLink"];
    path = next ? `${new URL(next).pathname}${new URL(next).search}` : undefined;
  }
  return out;
}

const itemPath = (drive: string, item: string) => `/v1.0/drives/${seg(drive)}/items/${seg(item)}/workbook`;

async function sheetsOf(calls: RestCalls, drive: string, item: string): Promise<string[]> {
  const body = (await calls.get(`${itemPath(drive, item)}/worksheets`)).body as { value?: { name: string }[] } | undefined;
  return (body?.value ?? []).map((s) => s.name);
}

async function firstTable(calls: RestCalls, drive: string, item: string, sheet: string): Promise<Table | undefined> {
  const body = (await calls.get(`${itemPath(drive, item)}/worksheets/${seg(sheet)}/tables`)).body as { value?: Table[] } | undefined;
  return body?.value?.[0];
}

async function columnsOf(calls: RestCalls, drive: string, item: string, table: string): Promise<string[]> {
  const body = (await calls.get(`${itemPath(drive, item)}/tables/${seg(table)}/columns`)).body as { value?: { name: string; index?: number }[] } | undefined;
  return [...(body?.value ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((c) => c.name);
}

const cellSchema = (title: string): JsonSchema => ({ type: ["string", "number", "boolean", "null"], title });

const fail = (column: string, text: string): never => {
  throw new ConnectorError(`Column "${column}" holds ${text.length > 60 ? `${text.slice(0, 57)}...` : text}, which an Excel cell cannot hold exactly (15 significant digits, no NaN or infinity); map it to text, or round it in the model.`);
};

/** A number as a cell holds it: Excel keeps 15 significant digits of a double; more would change it. */
function number(column: string, text: string): number {
  const n = exactNumber(text);
  const digits = text.replace(/^[-+]/, "").replace(/[eE].*$/, "").replace(".", "").replace(/^0+/, "").replace(/0+$/, "");
  if (n === undefined || digits.length > MAX_DIGITS) return fail(column, text);
  return n;
}

/** A payload value as a cell takes it. */
function cell(column: string, value: unknown): unknown {
  if (value === null || value === undefined) return "";
  const exact = value instanceof JsonNumber ? value.text : typeof value === "string" ? markedNumber(value) : undefined;
  if (exact !== undefined) return number(column, exact);
  if (typeof value === "string") return FORMULA_START.test(value) ? `'${value}` : value;
  if (typeof value === "number") return Number.isFinite(value) ? number(column, String(value)) : fail(column, nonFiniteText(value));
  if (typeof value === "boolean") return value;
  throw new ConnectorError(`Column "${column}" holds ${JSON.stringify(value).slice(0, 80)}, which an Excel cell cannot hold (text, a number or true/false).`);
}

function rowOf(record: WriteRecord, ctx: RestContext): unknown[] {
  const target = ctx.prepared as Target;
  const unknown = Object.keys(record.payload).find((k) => !target.columns.includes(k));
  if (unknown !== undefined) throw new ConnectorError(`Column "${unknown}" is not a column of the table ${target.table} in "${ctx.stream.name}".`);
  return target.columns.map((c) => cell(c, record.payload[c]));
}

export const microsoftExcelDestination = defineRestDestination({
  definition: {
    name: "MicrosoftExcel",
    title: "Microsoft Excel",
    category: "Database",
    icon: "/icons/microsoft-excel.svg",
    documentationUrl: "https://learn.microsoft.com/en-us/graph/api/tablerowcollection-add",
    idempotentWrites: false,
    connectionSpecification: restSpecification(
      "Microsoft Excel",
      BASE_URL,
      { token: secretField("Token", "A Microsoft Graph access token with Files.ReadWrite for the OneDrive whose workbooks are written (tokens expire after about an hour).") },
      ["token"],
    ),
  },
  baseUrl: BASE_URL,
  auth: { kind: "bearer", field: "token" },
  limits: { maxRecords: 500, maxBytes: 4 * 1024 * 1024 },
  rate: { limit: 6000, unit: "minute", concurrency: 1 },
  writes: {
    insert: {
      async prepare(ctx): Promise<Target> {
        const { file, sheet } = splitStreamName(ctx.stream.name);
        const drive = await driveId(ctx);
        const item = (await workbooks(ctx, drive)).find((f) => f.name === file);
        if (!item) throw new ConnectorError(`There is no workbook "${file}" in the drive's root folder.`);
        const table = await firstTable(ctx, drive, item.id, sheet);
        if (!table) throw new ConnectorError(`The sheet "${sheet}" of "${file}" has no table: insert one (Insert, Table) with the columns as its header row.`);
        return { drive, item: item.id, table: table.id, columns: await columnsOf(ctx, drive, item.id, table.id) };
      },
      item: (record, ctx) => rowOf(record, ctx),
      request: (items, ctx) => {
        const target = ctx.prepared as Target;
        return { method: "POST", path: `${itemPath(target.drive, target.item)}/tables/${seg(target.table)}/rows/add`, body: { index: null, values: items } };
      },
    },
  },
  check: {
    request: () => ({ method: "GET", path: "/v1.0/me/drive" }),
    describe: (response) => {
      const drive = response.body as { driveType?: string; owner?: { user?: { displayName?: string } } } | undefined;
      const owner = drive?.owner?.user?.displayName;
      return `Connected to Microsoft Graph: the ${drive?.driveType ?? "OneDrive"} drive${owner ? ` of ${owner}` : ""}.`;
    },
  },
  async discover(ctx) {
    const drive = await driveId(ctx);
    const streams = [];
    for (const book of await workbooks(ctx, drive)) {
      for (const sheet of await sheetsOf(ctx, drive, book.id)) {
        const table = await firstTable(ctx, drive, book.id, sheet);
        if (!table) continue;
        const columns = await columnsOf(ctx, drive, book.id, table.id);
        streams.push({ name: `${book.name}, ${sheet}`, json_schema: { type: "object", title: table.name, properties: Object.fromEntries(columns.map((c) => [c, cellSchema(c)])) } });
      }
    }
    return streams;
  },
  errorText: (response: RestResponse) => {
    const error = (response.body as { error?: { code?: string; message?: string } } | undefined)?.error;
    return error ? [error.code, error.message].filter(Boolean).join(": ") : undefined;
  },
});

