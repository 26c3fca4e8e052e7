// A Google Sheets API v4 emulator with its OAuth token endpoint, written from the published
// reference (developers.google.com: service-account JWT bearer flow; spreadsheets.get,
// spreadsheets.batchUpdate AppendDimensionRequest, values.get, values.batchUpdate; error JSON;
// usage limits): tokens only for an assertion signed by the service account's key (400
// invalid_grant otherwise), 401 UNAUTHENTICATED without one, writes past the grid's rows refused
// ("exceeds grid limits"), a cell over 50,000 characters refused, 413 over the request size, and a
// per-minute write quota answered with 429 RESOURCE_EXHAUSTED. Messages the reference does not
// spell out are ours. One sheet; tests only.
import { createVerify, randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { FixedWindow, json, parseBody, startEmulator, type ReceivedRequest } from "./common";

const MAX_CELL_CHARS = 50_000;
const MAX_BODY_BYTES = 10 * 1024 * 1024;

export async function startSheetsEmulator(options: { clientEmail: string; publicKey: string; spreadsheetId: string; sheet: string; header: string[]; rowCount?: number }) {
  const tokens = new Set<string>();
  const grid: unknown[][] = [options.header.slice()];
  const state = { rowCount: options.rowCount ?? 1000, writes: new FixedWindow(60, 60_000) };
  const apiError = (res: ServerResponse, code: number, status: string, message: string) => json(res, code, { error: { code, message, status } });

  function token(req: ReceivedRequest, res: ServerResponse) {
    const form = new URLSearchParams(req.body);
    const [header, claims, signature] = (form.get("assertion") ?? "").split(".");
    const valid =
      form.get("grant_type") === "urn:ietf:params:oauth:grant-type:jwt-bearer" &&
      !!signature &&
      createVerify("RSA-SHA256").update(`${header}.${claims}`).verify(options.publicKey, Buffer.from(signature, "base64url"));
    const payload = valid ? (JSON.parse(Buffer.from(claims, "base64url").toString()) as { iss?: string; exp?: number; scope?: string }) : {};
    if (!valid || payload.iss !== options.clientEmail || (payload.exp ?? 0) * 1000 < Date.now() || !String(payload.scope).includes("spreadsheets")) {
      return json(res, 400, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
    }
    const accessToken = `ya29.${randomBytes(12).toString("hex")}`;
    tokens.add(accessToken);
    json(res, 200, { access_token: accessToken, expires_in: 3599, token_type: "Bearer" });
  }

  /** `'Sheet'!A5` → 0-based row 4, column 0; whole rows/columns for reads. */
  function parseRange(range: string): { row: number; column: number } | undefined {
    const m = /^'((?:[^']|'')+)'!([A-Z]+)(\d+)$/.exec(range);
    if (!m || m[1].replace(/''/g, "'") !== options.sheet) return undefined;
    const column = [...m[2]].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
    return { row: Number(m[3]) - 1, column };
  }

  function read(range: string): unknown[][] {
    const header = /^'(?:[^']|'')+'!1:1$/.test(range);
    if (header) return [grid[0]];
    const m = /^'(?:[^']|'')+'!([A-Z]+)2:\1$/.exec(range);
    if (!m) return [];
    const column = [...m[1]].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
    const out = grid.slice(1).map((row) => [row[column] ?? ""]);
    while (out.length > 0 && out[out.length - 1][0] === "") out.pop();
    return out;
  }

  function writeValues(req: ReceivedRequest, res: ServerResponse) {
    if (Buffer.byteLength(req.body) > MAX_BODY_BYTES) return apiError(res, 413, "INVALID_ARGUMENT", "Request payload size exceeds the limit: 10485760 bytes.");
    const body = parseBody(req) as { valueInputOption?: string; data?: { range: string; values: unknown[][] }[] } | undefined;
    if (!body?.valueInputOption) return apiError(res, 400, "INVALID_ARGUMENT", "'valueInputOption' is required but not specified");
    const data = body.data ?? [];
    // Sheets checks the whole request before writing anything.
    for (const d of data) {
      const at = parseRange(d.range);
      if (!at) return apiError(res, 400, "INVALID_ARGUMENT", `Unable to parse range: ${d.range}`);
      if (at.row >= state.rowCount) return apiError(res, 400, "INVALID_ARGUMENT", `Range (${d.range}) exceeds grid limits. Max rows: ${state.rowCount}, max columns: 26`);
      for (const v of d.values.flat()) {
        if (typeof v === "string" && v.length > MAX_CELL_CHARS) return apiError(res, 400, "INVALID_ARGUMENT", `Your input contains more than the maximum of ${MAX_CELL_CHARS} characters in a single cell.`);
        if (v !== null && typeof v === "object") return apiError(res, 400, "INVALID_ARGUMENT", `Invalid values[0]: struct_value {}`);
      }
    }
    const responses = data.map((d) => {
      const at = parseRange(d.range) as { row: number; column: number };
      d.values.forEach((values, r) => {
        const row = (grid[at.row + r] ??= []);
        values.forEach((v, c) => {
          if (v !== null) row[at.column + c] = v;
        });
      });
      return { spreadsheetId: options.spreadsheetId, updatedRange: d.range, updatedRows: d.values.length };
    });
    for (let i = 0; i < grid.length; i++) grid[i] ??= [];
    json(res, 200, { spreadsheetId: options.spreadsheetId, totalUpdatedRows: responses.length, responses });
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    const url = new URL(req.url, "http://emulator");
    if (req.method === "POST" && url.pathname === "/token") return token(req, res);
    if (!tokens.has(String(req.headers.authorization ?? "").replace(/^Bearer /, ""))) {
      return apiError(res, 401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.");
    }
    const base = `/v4/spreadsheets/${options.spreadsheetId}`;
    if (!url.pathname.startsWith(base)) return apiError(res, 404, "NOT_FOUND", "Requested entity was not found.");
    const rest = url.pathname.slice(base.length);
    if (req.method === "GET" && rest === "") {
      return json(res, 200, { properties: { title: "Emulated spreadsheet" }, sheets: [{ properties: { sheetId: 7, title: options.sheet, gridProperties: { rowCount: state.rowCount, columnCount: 26 } } }] });
    }
    if (req.method === "GET" && rest.startsWith("/values/")) {
      const range = decodeURIComponent(rest.slice("/values/".length));
      return json(res, 200, { range, majorDimension: "ROWS", values: read(range) });
    }
    if (req.method === "POST" && (rest === "/values:batchUpdate" || rest === ":batchUpdate")) {
      if (!state.writes.hit("user").allowed) {
        return apiError(res, 429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute per user' of service 'sheets.googleapis.com'.");
      }
      if (rest === "/values:batchUpdate") return writeValues(req, res);
      const append = (parseBody(req) as { requests?: { appendDimension?: { sheetId?: number; dimension?: string; length?: number } }[] } | undefined)?.requests?.[0]?.appendDimension;
      if (append?.sheetId !== 7 || append.dimension !== "ROWS") return apiError(res, 400, "INVALID_ARGUMENT", "Invalid requests[0].appendDimension");
      state.rowCount += append.length ?? 0;
      return json(res, 200, { spreadsheetId: options.spreadsheetId, replies: [{}] });
    }
    apiError(res, 404, "NOT_FOUND", "Requested entity was not found.");
  }

  const server = await startEmulator(handle);
  return { ...server, grid, state, expireTokens: () => tokens.clear() };
}
