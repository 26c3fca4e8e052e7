// The logs of sync records, {request, response, level} as text (the reference's console prints them).
// A log is stored only when it tells more than the record: a failure (the payload sent and the
// error) or a destination's own answer (an HTTP response). A row a SQL destination accepted stores
// none, so the hot path writes nothing more per row: its log is derived when read, from the record,
// its action and the run's write target, and says only what those establish.
import type { RecordLog, Row, WriteAction } from "@/lib/connectors/types";
import { logUrl, truncate } from "@/lib/connectors/shared/http";
import type { SyncRecordAction, SyncRecordStatus } from "@/lib/generated/prisma/enums";

/** What a run writes to, kept on the run (sync_runs.write_target) for the logs derived on read. */
export interface WriteTarget {
  /** The destination's connector name, e.g. `Postgresql`. */
  destination: string;
  stream: string;
  /** The stream has a primary key, so inserts and updates are sent as upserts. */
  upsert: boolean;
}

/** Longest payload a failure's log keeps. */
const PAYLOAD_LIMIT = 2 * 1024;

/** The write a record's action becomes: the pipeline sends exactly this (RunExecution.send). */
export function writeAction(action: SyncRecordAction, upsert: boolean): WriteAction {
  if (action === "destination_delete") return "delete";
  if (upsert) return "upsert";
  return action === "destination_insert" ? "insert" : "update";
}

const PHRASES: Record<WriteAction, string> = { insert: "insert into", upsert: "upsert into", update: "update", delete: "delete from" };

function describeWrite(action: WriteAction, stream: string): string {
  return `${PHRASES[action]} ${stream}`;
}

/** A failure the destination gave no log for (SQL destinations): the write, its payload, the error. */
export function failureLog(action: WriteAction, stream: string, payload: Row, error: string): RecordLog {
  return { request: `${describeWrite(action, stream)}\n${truncate(JSON.stringify(payload), PAYLOAD_LIMIT)}`, response: error, level: "error" };
}

/** A row that could not be mapped was never sent. */
export function unsentLog(error: string): RecordLog {
  return { request: "Not sent: the row could not be mapped to the destination's fields.", response: error, level: "error" };
}

/** The log as stored: scrubbed of secrets, its level the outcome's. */
export function storedLog(log: RecordLog, ok: boolean, scrub: (text: string) => string): RecordLog {
  return { request: scrub(log.request), response: scrub(log.response), level: ok ? "info" : "error" };
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

/**
 * Text of a stored request or response. Logs stored before they were text hold the HTTP exchange
 * as objects ({method, url, headers, body}, {status, headers, body} or {error}); headers are dropped.
 */
function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  if (isObject(value)) {
    const body = typeof value.body === "string" && value.body !== "" ? `\n${value.body}` : "";
    if (typeof value.method === "string" && typeof value.url === "string") return `${value.method} ${logUrl(value.url)}${body}`;
    if (typeof value.status === "number") return `HTTP ${value.status}${body}`;
    if (typeof value.error === "string") return value.error;
  }
  return JSON.stringify(value);
}

/**
 * A record's logs as the API shows them: the stored log, or for a record that stored none, the one
 * its status, action, key and the run's write target establish. Every record has one.
 */
export function recordLogs(record: LoggedRecord, target: WriteTarget | null): RecordLog {
  const failed = record.status === "failed";
  if (isObject(record.logs)) {
    return { request: text(record.logs.request), response: text(record.logs.response), level: failed ? "error" : "info" };
  }
  const sent = `the row mapped from this record (key ${record.primaryKey})`;
  const request = target
    ? `${describeWrite(writeAction(record.action, target.upsert), target.stream)} (${target.destination}): ${sent}`
    : `${record.action}: ${sent}`;
  if (failed) return { request, response: record.error ?? "The destination refused the record.", level: "error" };
  if (record.status === "pending") return { request, response: "Not answered yet.", level: "info" };
  return { request, response: `Accepted by ${target?.destination ?? "the destination"}.`, level: "info" };
}

/** The write target as stored (JSON), or null when the run predates it or it is malformed. */
export function parseWriteTarget(value: unknown): WriteTarget | null {
  if (!isObject(value)) return null;
  const { destination, stream, upsert } = value;
  return typeof destination === "string" && typeof stream === "string" && typeof upsert === "boolean" ? { destination, stream, upsert } : null;
}
