// The logs of sync records, {request, response, level}, shown as text (the reference's console
// prints them). A log is stored only when it tells more than the record: a failure (the payload sent
// and the error) or a destination's own answer (an HTTP response). A row a SQL destination accepted
// stores none, so that hot path writes nothing more per row: its log is derived when read, from the
// record, its action and the run's write target, and says only what those establish.
// Stored logs keep each side as {line, body} with the body as its JSON value where it is one: the
// row's JSON inside a string would be escaped twice (JSON, then COPY), several times the cost.
import { exactJson } from "@/lib/connectors/shared/values";
import type { LogPart, RecordLog, Row, WriteAction } from "@/lib/connectors/types";
import { logUrl, truncate } from "@/lib/net/http";
import type { SyncRecordAction, SyncRecordStatus } from "@/lib/generated/prisma/enums";
import { WRITE_MODES, splitsByPresence, type WriteMode } from "@/lib/sync-rules/write-mode";

/** What a run writes to, kept on the run (sync_runs.write_target) for the logs derived on read. */
export interface WriteTarget {
  /** The destination's connector name, e.g. `Postgresql`. */
  destination: string;
  stream: string;
  /** The stream has a primary key, so inserts and updates are sent as upserts (in upsert and mirror modes). */
  upsert: boolean;
  /** The sync's write mode during the run; absent on runs before write modes. */
  mode?: WriteMode;
}

/** A record's logs as the API shows them. */
export interface RecordLogText {
  request: string;
  response: string;
  level: "info" | "error";
}

/**
 * The write a record's action becomes: the run sends exactly this (send-batch.ts:sendItems; in update
 * and insert modes the record's action is already the write the mode decided, engine/write-mode.ts).
 */
export function writeAction(action: SyncRecordAction, upsert: boolean, mode?: WriteMode): WriteAction {
  if (action === "destination_delete") return "delete";
  if (upsert && !(mode && splitsByPresence(mode))) return "upsert";
  return action === "destination_insert" ? "insert" : "update";
}

const PHRASES: Record<WriteAction, string> = { insert: "insert into", upsert: "upsert into", update: "update", delete: "delete from" };

function describeWrite(action: WriteAction, stream: string): string {
  return `${PHRASES[action]} ${stream}`;
}

/** A failure the destination gave no log for (SQL destinations): the write, its payload, the error. */
export function failureLog(action: WriteAction, stream: string, payload: Row, error: string): RecordLog {
  return { request: { line: describeWrite(action, stream), body: payload }, response: { line: error }, level: "error" };
}

/** A row that could not be mapped was never sent. */
export function unsentLog(error: string): RecordLog {
  return { request: { line: "Not sent: the row could not be mapped to the destination's fields." }, response: { line: error }, level: "error" };
}

/** Every string in a JSON value, scrubbed. */
function scrubValue(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === "string") return scrub(value);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, scrub));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key in value) out[key] = scrubValue((value as Record<string, unknown>)[key], scrub);
    return out;
  }
  return value;
}

/**
 * The log as stored: scrubbed of secrets (lines and bodies: a receiver may echo a header back), its
 * level the outcome's. `memo` scrubs a part shared by the records of one request only once.
 */
export function storedLog(log: RecordLog, ok: boolean, scrub: (text: string) => string, memo?: WeakMap<LogPart, LogPart>): RecordLog {
  const part = (p: LogPart): LogPart => {
    const known = memo?.get(p);
    if (known) return known;
    const scrubbed: LogPart = p.body === undefined ? { line: scrub(p.line) } : { line: scrub(p.line), body: scrubValue(p.body, scrub) };
    memo?.set(p, scrubbed);
    return scrubbed;
  };
  return { request: part(log.request), response: part(log.response), level: ok ? "info" : "error" };
}

/** What the read side knows of a record. */
export interface LoggedRecord {
  status: SyncRecordStatus;
  action: SyncRecordAction;
  primaryKey: string;
  error: string | null;
  logs: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const bodyText = (body: unknown) => (typeof body === "string" ? body : truncate(exactJson(body), 10 * 1024));

/**
 * Text of a stored side: {line, body}, a string, or what logs held before they were text (the HTTP
 * exchange as objects: {method, url, headers, body}, {status, headers, body} or {error}; the headers
 * are dropped).
 */
function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  if (isObject(value)) {
    const body = value.body === undefined || value.body === null || value.body === "" ? "" : `\n${bodyText(value.body)}`;
    if (typeof value.line === "string") return `${value.line}${body}`;
    if (typeof value.method === "string" && typeof value.url === "string") return `${value.method} ${logUrl(value.url)}${body}`;
    if (typeof value.status === "number") return `HTTP ${value.status}${body}`;
    if (typeof value.error === "string") return value.error;
  }
  return exactJson(value);
}

/**
 * A record's logs as the API shows them: the stored log as text, or for a record that stored none,
 * the one its status, action, key and the run's write target establish. Every record has one.
 */
export function recordLogs(record: LoggedRecord, target: WriteTarget | null): RecordLogText {
  const failed = record.status === "failed";
  if (record.status === "skipped" && !isObject(record.logs)) {
    const what = target ? describeWrite(writeAction(record.action, target.upsert, target.mode), target.stream) : record.action;
    return { request: `Not sent (${what}): the record (key ${record.primaryKey}) was skipped.`, response: record.error ?? "Skipped.", level: "info" };
  }
  if (isObject(record.logs)) {
    return { request: text(record.logs.request), response: text(record.logs.response), level: failed ? "error" : "info" };
  }
  const sent = `the row mapped from this record (key ${record.primaryKey})`;
  const request = target
    ? `${describeWrite(writeAction(record.action, target.upsert, target.mode), target.stream)} (${target.destination}): ${sent}`
    : `${record.action}: ${sent}`;
  if (failed) return { request, response: record.error ?? "The destination refused the record.", level: "error" };
  if (record.status === "pending") return { request, response: "Not answered yet.", level: "info" };
  return { request, response: `Accepted by ${target?.destination ?? "the destination"}.`, level: "info" };
}

/** The write target as stored (JSON), or null when the run predates it or it is malformed. */
export function parseWriteTarget(value: unknown): WriteTarget | null {
  if (!isObject(value)) return null;
  const { destination, stream, upsert, mode } = value;
  if (typeof destination !== "string" || typeof stream !== "string" || typeof upsert !== "boolean") return null;
  return (WRITE_MODES as readonly unknown[]).includes(mode) ? { destination, stream, upsert, mode: mode as WriteMode } : { destination, stream, upsert };
}
