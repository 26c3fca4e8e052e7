// GoogleDrive with data_type `unstructured`: one row per file of the folder, with the reference's
// column names (element_id, file_name, file_path, size, file_type, created_date, modified_date,
// text) and two of ours (mime_type, content_base64). The content travels as `text` when the file
// is text (text/*, JSON, XML, CSV, YAML, a Google Doc or Sheet export) and valid UTF-8, else as
// `content_base64`; a file larger than max_content_kb is listed with neither (both null). A
// model's query is the reference's command: `list_files` (every file) or `download_file <name>`.
import type { Catalog, QueryResult, ReadOptions, Row } from "../types";
import { buildCatalog } from "../shared/catalog";
import { ConnectorError } from "../shared/errors";
import { EXPORTS, type DriveApi, type DriveFile } from "./drive-api";

export const UNSTRUCTURED_STREAM = "unstructured";

const COLUMNS: { name: string; type: "string" | "integer" }[] = [
  { name: "element_id", type: "string" },
  { name: "file_name", type: "string" },
  { name: "file_path", type: "string" },
  { name: "size", type: "integer" },
  { name: "file_type", type: "string" },
  { name: "mime_type", type: "string" },
  { name: "created_date", type: "string" },
  { name: "modified_date", type: "string" },
  { name: "text", type: "string" },
  { name: "content_base64", type: "string" },
];

/** Rows of contents held at once beyond which a batch is handed over early. */
const BATCH_CONTENT_BYTES = 16 * 1024 * 1024;

const TEXT_TYPES = /^(text\/|application\/(json|xml|csv|x-ndjson|x-yaml|yaml|javascript|sql)\b)|\+(json|xml)$/;

export type Command = { kind: "list" } | { kind: "one"; name: string };

/** The model query as a command; throws a sentence for anything else. */
export function parseCommand(query: string): Command {
  const text = query.trim().replace(/;$/, "").trim();
  if (/^list_files$/i.test(text)) return { kind: "list" };
  const m = /^download_file\s+(.+)$/is.exec(text);
  if (m) return { kind: "one", name: m[1].trim().replace(/^(["'])(.*)\1$/s, "$2") };
  throw new ConnectorError("An unstructured Google Drive model's query is `list_files` (every file of the folder) or `download_file <file name>`.");
}

export function unstructuredCatalog(): Catalog {
  return buildCatalog([
    {
      name: UNSTRUCTURED_STREAM,
      action: "fetch",
      url: UNSTRUCTURED_STREAM,
      json_schema: {
        type: "object",
        properties: Object.fromEntries(COLUMNS.map((c) => [c.name, { type: [c.type, "null"] }])),
      },
      batch_support: false,
      batch_size: 0,
      request_method: "GET",
      primary_key: ["element_id"],
    },
  ]);
}

/** Reads at most `cap + 1` bytes of the stream (one more tells it was larger). */
async function readCapped(api: DriveApi, file: DriveFile, cap: number, signal?: AbortSignal): Promise<Buffer | undefined> {
  const stream = await api.download(file, signal);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size > cap) return undefined;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks);
}

function isText(file: DriveFile): boolean {
  return !!EXPORTS[file.mimeType] || TEXT_TYPES.test(file.mimeType);
}

async function fileRow(api: DriveApi, file: DriveFile, cap: number, signal?: AbortSignal): Promise<Row> {
  const native = file.mimeType.startsWith("application/vnd.google-apps.");
  const fetchable = !native || !!EXPORTS[file.mimeType];
  const bytes = fetchable && (file.size === undefined || file.size <= cap) ? await readCapped(api, file, cap, signal) : undefined;
  let text: string | null = null;
  let base64: string | null = null;
  if (bytes) {
    if (isText(file)) {
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch {
        base64 = bytes.toString("base64");
      }
    } else base64 = bytes.toString("base64");
  }
  return {
    element_id: file.id,
    file_name: file.name,
    file_path: file.name,
    size: file.size ?? bytes?.length ?? null,
    file_type: file.fileExtension ?? EXPORTS[file.mimeType]?.extension.slice(1) ?? null,
    mime_type: file.mimeType,
    created_date: file.createdTime ?? null,
    modified_date: file.modifiedTime ?? null,
    text,
    content_base64: base64,
  };
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const x = String(a ?? "");
  const y = String(b ?? "");
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The folder's files a command names, in a stable order (by cursor when incremental). */
async function selectFiles(api: DriveApi, folderName: string, command: Command, options: Pick<ReadOptions, "cursorField" | "cursorValue" | "signal">): Promise<DriveFile[]> {
  const folderId = await api.folderId(folderName, options.signal);
  const files: DriveFile[] = [];
  for await (const file of api.files(folderId, options.signal)) {
    if (command.kind === "one" && file.name !== command.name) continue;
    files.push(file);
    if (command.kind === "one") break;
  }
  if (command.kind === "one" && files.length === 0) throw new ConnectorError(`No file "${command.name}" in the Drive folder "${folderName}".`, "not_found");
  const { cursorField, cursorValue } = options;
  if (!cursorField) return files.sort((a, b) => compare(a.name, b.name) || compare(a.id, b.id));
  if (!COLUMNS.some((c) => c.name === cursorField)) throw new ConnectorError(`"${cursorField}" is not a column of the unstructured stream; use modified_date.`);
  const value = (f: DriveFile): string | number | undefined =>
    ({ element_id: f.id, file_name: f.name, file_path: f.name, size: f.size, file_type: f.fileExtension, mime_type: f.mimeType, created_date: f.createdTime, modified_date: f.modifiedTime })[
      cursorField as "size"
    ];
  const atOrAfter = (f: DriveFile) => {
    const v = value(f);
    return v !== undefined && compare(v, typeof v === "number" ? Number(cursorValue) : cursorValue) >= 0;
  };
  const wanted = cursorValue === undefined || cursorValue === null ? files : files.filter(atOrAfter);
  return wanted.sort((a, b) => compare(value(a), value(b)) || compare(a.id, b.id));
}

export async function previewUnstructured(api: DriveApi, folderName: string, query: string, limit: number, cap: number): Promise<QueryResult> {
  const files = (await selectFiles(api, folderName, parseCommand(query), {})).slice(0, limit);
  const rows: Row[] = [];
  for (const file of files) rows.push(await fileRow(api, file, cap));
  return { columns: COLUMNS.map((c) => ({ name: c.name, type: c.type === "integer" ? "bigint" : "text" })), rows };
}

/** The rows in batches of at most batchSize, and at most ~16 MiB of contents per batch. */
export async function* readUnstructured(api: DriveApi, folderName: string, options: ReadOptions, cap: number): AsyncGenerator<Row[]> {
  const files = await selectFiles(api, folderName, parseCommand(options.query), options);
  let batch: Row[] = [];
  let bytes = 0;
  for (const file of files) {
    if (options.signal?.aborted) throw new ConnectorError("The read was stopped.", "canceled");
    const row = await fileRow(api, file, cap, options.signal);
    batch.push(row);
    bytes += String(row.text ?? row.content_base64 ?? "").length;
    if (batch.length >= Math.max(1, options.batchSize) || bytes >= BATCH_CONTENT_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) yield batch;
}
