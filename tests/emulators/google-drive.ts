// A Google Drive API v3 emulator with its OAuth token endpoint, written from the published
// reference (developers.google.com/drive/api: files.list with `q`, `fields`, `pageSize`,
// `pageToken`, `supportsAllDrives`/`includeItemsFromAllDrives`; files.get with `alt=media`;
// files.export; "Resolve errors": the error JSON, 403 userRateLimitExceeded, 429
// rateLimitExceeded, 404 notFound, 403 fileNotDownloadable; the service-account JWT bearer flow).
// Tokens only for an assertion signed by the service account's key with a Drive scope (400
// invalid_grant otherwise), 401 without one. `q` understands the terms this project sends (name,
// mimeType = / !=, 'id' in parents, trashed = false, joined by `and`); others are a 400 as Drive
// answers an invalid query. Pages are capped at `pageCap` items so tests see paging with few files.
// Messages the reference does not spell out are ours. Tests only.
import { createVerify, randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { json, startHttpServer as startEmulator, type ReceivedRequest } from "../support/connectors";

export const FOLDER_MIME = "application/vnd.google-apps.folder";
export const SHEET_MIME = "application/vnd.google-apps.spreadsheet";
const EXPORT_LIMIT_BYTES = 10 * 1024 * 1024;

export interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  content: Buffer;
  createdTime: string;
  modifiedTime: string;
  trashed?: boolean;
}

type Term = (f: DriveFile) => boolean;

/** One `q` term, or undefined when the emulator (and this project) does not use it. */
function parseTerm(term: string): Term | undefined {
  const str = "'((?:[^'\\\\]|\\\\.)*)'";
  const unescape = (s: string) => s.replace(/\\(.)/g, "$1");
  let m = new RegExp(`^name\\s*=\\s*${str}$`).exec(term);
  if (m) {
    const name = unescape(m[1]);
    return (f) => f.name === name;
  }
  m = new RegExp(`^mimeType\\s*(=|!=)\\s*${str}$`).exec(term);
  if (m) {
    const [op, mime] = [m[1], unescape(m[2])];
    return (f) => (op === "=" ? f.mimeType === mime : f.mimeType !== mime);
  }
  m = new RegExp(`^${str}\\s+in\\s+parents$`).exec(term);
  if (m) {
    const parent = unescape(m[1]);
    return (f) => f.parents.includes(parent);
  }
  m = /^trashed\s*=\s*(true|false)$/.exec(term);
  if (m) {
    const trashed = m[1] === "true";
    return (f) => !!f.trashed === trashed;
  }
  return undefined;
}

function parseQuery(q: string): Term | undefined {
  if (q.trim() === "") return () => true;
  const terms = q.split(/\s+and\s+/).map((t) => parseTerm(t.trim().replace(/^\((.*)\)$/, "$1").trim()));
  if (terms.some((t) => !t)) return undefined;
  return (f) => terms.every((t) => t!(f));
}

/** `files(id,name,size),nextPageToken` → the file fields asked for; Drive's default without `fields`. */
function fileFields(fields: string | null): string[] {
  if (!fields) return ["kind", "id", "name", "mimeType"];
  const m = /files\(([^)]*)\)/.exec(fields);
  return m ? m[1].split(",").map((f) => f.trim()).filter(Boolean) : ["kind", "id", "name", "mimeType"];
}

function describeFile(f: DriveFile, fields: string[]): Record<string, unknown> {
  const all: Record<string, unknown> = {
    kind: "drive#file",
    id: f.id,
    name: f.name,
    mimeType: f.mimeType,
    parents: f.parents,
    createdTime: f.createdTime,
    modifiedTime: f.modifiedTime,
    trashed: !!f.trashed,
    // Drive reports size (as a string: int64) only for files with binary content.
    ...(f.mimeType.startsWith("application/vnd.google-apps.") ? {} : { size: String(f.content.length), fileExtension: f.name.includes(".") ? f.name.split(".").pop() : undefined }),
  };
  return Object.fromEntries(fields.filter((k) => all[k] !== undefined).map((k) => [k, all[k]]));
}

export async function startDriveEmulator(options: { clientEmail: string; publicKey: string; pageCap?: number }) {
  const tokens = new Set<string>();
  const files: DriveFile[] = [];
  const pageTokens = new Map<string, { q: string; offset: number }>();
  /** Failures answered to the next API requests, in order (rate limits). */
  const failures: { status: 403 | 429 | 500; reason: string; retryAfter?: number }[] = [];
  const state = { pageCap: options.pageCap ?? 1000, apiRequests: 0 };
  const apiError = (res: ServerResponse, code: number, reason: string, message: string, headers: Record<string, string> = {}) =>
    json(res, code, { error: { code, message, errors: [{ domain: code === 404 || code === 400 ? "global" : "usageLimits", reason, message }] } }, headers);

  function token(req: ReceivedRequest, res: ServerResponse) {
    const form = new URLSearchParams(req.body);
    const [header, claims, signature] = (form.get("assertion") ?? "").split(".");
    const valid =
      form.get("grant_type") === "urn:ietf:params:oauth:grant-type:jwt-bearer" &&
      !!signature &&
      createVerify("RSA-SHA256").update(`${header}.${claims}`).verify(options.publicKey, Buffer.from(signature, "base64url"));
    const payload = valid ? (JSON.parse(Buffer.from(claims, "base64url").toString()) as { iss?: string; exp?: number; scope?: string }) : {};
    if (!valid || payload.iss !== options.clientEmail || (payload.exp ?? 0) * 1000 < Date.now() || !String(payload.scope).includes("/auth/drive")) {
      return json(res, 400, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
    }
    const accessToken = `ya29.${randomBytes(12).toString("hex")}`;
    tokens.add(accessToken);
    json(res, 200, { access_token: accessToken, expires_in: 3599, token_type: "Bearer" });
  }

  function list(url: URL, res: ServerResponse) {
    const pageToken = url.searchParams.get("pageToken");
    let q = url.searchParams.get("q") ?? "";
    let offset = 0;
    if (pageToken) {
      const saved = pageTokens.get(pageToken);
      if (!saved) return apiError(res, 400, "invalid", "Invalid Value");
      ({ q, offset } = saved);
    }
    const match = parseQuery(q);
    if (!match) return apiError(res, 400, "invalid", "Invalid Value");
    const pageSize = Math.min(Number(url.searchParams.get("pageSize") ?? 100), 1000, state.pageCap);
    const found = files.filter(match).sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    const page = found.slice(offset, offset + pageSize);
    const body: Record<string, unknown> = { kind: "drive#fileList", incompleteSearch: false, files: page.map((f) => describeFile(f, fileFields(url.searchParams.get("fields")))) };
    if (offset + pageSize < found.length) {
      const next = randomBytes(8).toString("hex");
      pageTokens.set(next, { q, offset: offset + pageSize });
      body.nextPageToken = next;
    }
    json(res, 200, body);
  }

  function content(id: string, url: URL, exporting: boolean, res: ServerResponse) {
    const file = files.find((f) => f.id === id && !f.trashed);
    if (!file) return apiError(res, 404, "notFound", `File not found: ${id}.`);
    const native = file.mimeType.startsWith("application/vnd.google-apps.");
    if (exporting) {
      if (!native) return apiError(res, 403, "fileNotExportable", "Export only supports Docs Editors files.");
      if (file.mimeType !== SHEET_MIME || url.searchParams.get("mimeType") !== "text/csv") return apiError(res, 400, "badRequest", "The requested conversion is not supported.");
      if (file.content.length > EXPORT_LIMIT_BYTES) return apiError(res, 403, "exportSizeLimitExceeded", "This file is too large to be exported.");
    } else {
      if (url.searchParams.get("alt") !== "media") return json(res, 200, describeFile(file, fileFields(`files(${url.searchParams.get("fields") ?? "kind,id,name,mimeType"})`)));
      if (native) return apiError(res, 403, "fileNotDownloadable", "Only files with binary content can be downloaded. Use Export with Docs Editors files.");
    }
    res.writeHead(200, { "content-type": exporting ? "text/csv" : file.mimeType, "content-length": String(file.content.length) });
    res.end(file.content);
  }

  const server = await startEmulator((req, res) => {
    const url = new URL(req.url, "http://emulator");
    if (req.method === "POST" && url.pathname === "/token") return token(req, res);
    state.apiRequests++;
    const bearer = String(req.headers.authorization ?? "").replace(/^Bearer /, "");
    if (!tokens.has(bearer)) {
      return json(res, 401, { error: { code: 401, message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.", errors: [{ domain: "global", reason: "authError", message: "Invalid Credentials", locationType: "header", location: "Authorization" }] } });
    }
    const failure = failures.shift();
    if (failure) {
      const message = failure.status === 500 ? "Internal Error" : failure.reason === "userRateLimitExceeded" ? "User Rate Limit Exceeded" : "Rate Limit Exceeded";
      return apiError(res, failure.status, failure.reason, message, failure.retryAfter !== undefined ? { "retry-after": String(failure.retryAfter) } : {});
    }
    if (req.method === "GET" && url.pathname === "/drive/v3/files") return list(url, res);
    const m = /^\/drive\/v3\/files\/([^/]+)(\/export)?$/.exec(url.pathname);
    if (req.method === "GET" && m) return content(decodeURIComponent(m[1]), url, !!m[2], res);
    apiError(res, 404, "notFound", "Not Found");
  });

  let nextId = 1;
  const now = new Date("2026-01-01T00:00:00Z").getTime();
  return {
    ...server,
    files,
    failures,
    state,
    expireTokens: () => tokens.clear(),
    /** Adds a folder (under `parent`, default the root) and gives its id. */
    addFolder(name: string, parent = "root"): string {
      const id = `fold${nextId++}${randomBytes(4).toString("hex")}`;
      files.push({ id, name, mimeType: FOLDER_MIME, parents: [parent], content: Buffer.alloc(0), createdTime: new Date(now).toISOString(), modifiedTime: new Date(now).toISOString() });
      return id;
    },
    /** Adds (or replaces, by name within the folder) a file; `modifiedTime` moves on with each change. */
    putFile(folderId: string, name: string, body: string | Buffer, mimeType = "text/csv", modified?: Date): DriveFile {
      const existing = files.find((f) => f.name === name && f.parents.includes(folderId));
      const modifiedTime = (modified ?? new Date(now + nextId * 1000)).toISOString();
      if (existing) {
        existing.content = Buffer.from(body);
        existing.modifiedTime = modifiedTime;
        existing.mimeType = mimeType;
        return existing;
      }
      const file: DriveFile = { id: `file${nextId++}${randomBytes(4).toString("hex")}`, name, mimeType, parents: [folderId], content: Buffer.from(body), createdTime: new Date(now).toISOString(), modifiedTime };
      files.push(file);
      return file;
    },
  };
}

export type DriveEmulator = Awaited<ReturnType<typeof startDriveEmulator>>;
