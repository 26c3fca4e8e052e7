// The Odoo source: a model names one Odoo model and its fields (query.ts), read with search_read in
// pages of the run's batch size, in id order by keyset (id > last id), or, for an incremental sync,
// in (cursor, id) order from the cursor's value on, so a page never repeats or skips a record even
// when records are written meanwhile. Discovery lists every model with its fields (catalog.ts).
// Throttled calls (HTTP 429 from Odoo Online or a proxy in front of Odoo) are retried after their
// Retry-After. Errors leave here without the password.
import { createHash } from "node:crypto";
import type { Catalog, CheckResult, FingerprintedBatch, FingerprintOptions, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { buildCatalog } from "../shared/catalog";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { redact, secretValues } from "../shared/secrets";
import { exactJson } from "../shared/values";
import { odooModels } from "./catalog";
import { odooSettings, odooSourceDefinition } from "./definition";
import { FIELD_ATTRIBUTES, fieldSchema, rowOf, type OdooFields } from "./fields";
import { parseOdooQuery, type OdooQuery } from "./query";
import { FIELDS_ANSWER_BYTES, OdooClient } from "./rpc";

/** Tries of a throttled read call (the first included). */
const READ_RETRIES = 4;
/** Field types a cursor can be compared in. */
const CURSOR_TYPES = new Set(["integer", "float", "monetary", "date", "datetime", "char"]);

async function scrubbed<T>(config: Row, work: (client: OdooClient) => Promise<T>, signal?: AbortSignal): Promise<T> {
  try {
    return await work(new OdooClient(odooSettings(config), signal, READ_RETRIES));
  } catch (err) {
    throw new ConnectorError(redact(errorMessage(err), secretValues(config, odooSourceDefinition)), (err as { code?: string }).code);
  }
}

async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
  return safeCheck(odooSourceDefinition, config, () =>
    scrubbed(
      config,
      async (client) => {
        const version = await client.version();
        const uid = await client.login();
        const { database, username } = client.settings;
        return { ok: true, details: `Connected to Odoo ${version}, database "${database}", as ${username} (user id ${uid}).` };
      },
      signal,
    ),
  );
}

async function discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
  return scrubbed(
    config,
    async (client) => {
      const models = await odooModels(client);
      return buildCatalog(
        models.map((m) => ({
          name: m.model,
          action: "fetch" as const,
          url: `${client.settings.url}/jsonrpc`,
          json_schema: { type: "object", title: m.name, properties: Object.fromEntries(Object.entries(m.fields).map(([name, f]) => [name, fieldSchema(f)])) },
          batch_support: false,
          batch_size: 0,
          request_method: "POST" as const,
          ...("id" in m.fields ? { primary_key: ["id"] } : {}),
        })),
      );
    },
    signal,
  );
}

/** The model's fields, and the fields a row carries (the query's, or every field for `*`). */
async function modelFields(client: OdooClient, q: OdooQuery): Promise<{ fields: OdooFields; names: string[] }> {
  const fields = await client.result<OdooFields>(q.model, "fields_get", [], { attributes: FIELD_ATTRIBUTES }, FIELDS_ANSWER_BYTES);
  const unknown = q.fields.find((f) => !(f in fields));
  if (unknown !== undefined) throw new ConnectorError(`"${unknown}" is not a field of the Odoo model ${q.model}.`);
  return { fields, names: q.fields.length > 0 ? q.fields : Object.keys(fields) };
}

async function query(config: Row, sql: string, limit: number, signal?: AbortSignal): Promise<QueryResult> {
  const q = parseOdooQuery(sql);
  return scrubbed(
    config,
    async (client) => {
      const { fields, names } = await modelFields(client, q);
      const n = Math.max(0, Math.min(Math.floor(limit), q.limit ?? Number.POSITIVE_INFINITY));
      const records =
        n === 0 ? [] : await client.result<Row[]>(q.model, "search_read", [[]], { fields: names, limit: n, offset: q.offset ?? 0, order: q.order ?? "id" });
      return { columns: names.map((name) => ({ name, type: fields[name].type })), rows: records.map((r) => rowOf(r, fields, names)) };
    },
    signal,
  );
}

type Domain = unknown[];

/** Records after the last one read, in the read's order: (cursor, id) > last, then empty cursors (which sort last). */
function after(last: Row | undefined, cursor: string | undefined): Domain {
  if (!last) return [];
  if (!cursor) return [["id", ">", last.id]];
  const value = last[cursor];
  if (value === false || value === null || value === undefined) return [[cursor, "=", false], ["id", ">", last.id]];
  return ["|", "|", [cursor, ">", value], "&", [cursor, "=", value], ["id", ">", last.id], [cursor, "=", false]];
}

/** A cursor value as compared here: numbers as numbers, dates and datetimes as their (sortable) text; undefined when empty. */
function cursorKey(value: unknown): number | string | undefined {
  if (value === false || value === null || value === undefined) return undefined;
  return typeof value === "number" || typeof value === "string" ? value : Number(String(value));
}

/**
 * Throws unless `next` comes strictly after `prev` in the read's order ((cursor, id) ascending, empty
 * cursors last): a server that repeats or reorders records would otherwise keep a keyset read paging
 * forever. Text cursors follow the database's collation, which is not JavaScript's: for them only an
 * equal value is checked (the id must grow); max_pages and read_timeout bound the rest.
 */
function assertAfter(prev: Row, next: Row, cursor: string | undefined, textCursor: boolean): void {
  const nextId = Number(String(next.id));
  const prevId = Number(String(prev.id));
  let ordered: boolean;
  if (!cursor) ordered = nextId > prevId;
  else {
    const a = cursorKey(prev[cursor]);
    const b = cursorKey(next[cursor]);
    if (a === undefined || b === undefined) ordered = b === undefined && (a !== undefined || nextId > prevId);
    else if (a === b) ordered = nextId > prevId;
    else ordered = textCursor || b > a;
  }
  if (!ordered) {
    throw new ConnectorError(
      `Odoo answered record id ${String(next.id)} after record id ${String(prev.id)}, out of the read's order (${cursor ? `${cursor}, id` : "id"}): the read was stopped rather than read the same records again.`,
      "out_of_order",
    );
  }
}

async function* pages(client: OdooClient, options: ReadOptions): AsyncGenerator<Row[]> {
  const q = parseOdooQuery(options.query);
  const { fields, names } = await modelFields(client, q);
  const cursor = options.cursorField || undefined;
  if (cursor) {
    const field = fields[cursor];
    if (!field) throw new ConnectorError(`The cursor field "${cursor}" is not a field of the Odoo model ${q.model}.`);
    if (!CURSOR_TYPES.has(field.type)) throw new ConnectorError(`The cursor field "${cursor}" is an Odoo ${field.type} field, which cannot be compared: pick a date, datetime, number or text field (write_date is usual).`);
  }
  const rowNames = cursor && !names.includes(cursor) ? [...names, cursor] : names;
  const asked = [...new Set(["id", ...rowNames])];
  const base: Domain = cursor && options.cursorValue !== undefined && options.cursorValue !== null ? [[cursor, ">=", options.cursorValue]] : [];
  const order = cursor ? `${cursor} asc, id asc` : "id asc";
  const textCursor = cursor !== undefined && fields[cursor].type === "char";
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  const { maxPages, readTimeoutMs } = client.settings;
  const deadline = Date.now() + readTimeoutMs;
  let remaining = q.limit ?? Number.POSITIVE_INFINITY;
  let offset = q.offset ?? 0;
  let last: Row | undefined;
  for (let page = 0; remaining > 0; page++) {
    if (page >= maxPages) throw new ConnectorError(`The model has more than ${maxPages} pages of ${batchSize} records (max_pages); the read was stopped.`, "too_many_pages");
    if (Date.now() >= deadline) throw new ConnectorError(`The read took longer than ${readTimeoutMs / 1000} s (read_timeout); it was stopped.`, "timeout");
    const limit = Math.min(batchSize, remaining);
    const records = await client.result<Row[]>(q.model, "search_read", [[...base, ...after(last, cursor)]], { fields: asked, order, limit, offset });
    if (!Array.isArray(records) || records.length === 0) return;
    if (records.length > limit) throw new ConnectorError(`Odoo answered ${records.length} records when ${limit} were asked for; the read was stopped.`);
    records.forEach((r, i) => {
      const prev = i === 0 ? last : records[i - 1];
      if (prev) assertAfter(prev, r, cursor, textCursor);
    });
    yield records.map((r) => rowOf(r, fields, rowNames));
    if (records.length < limit) return;
    remaining -= records.length;
    offset = 0;
    last = records[records.length - 1];
  }
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  const secrets = secretValues(config, odooSourceDefinition);
  try {
    yield* pages(new OdooClient(odooSettings(config), options.signal, READ_RETRIES), options);
  } catch (err) {
    throw new ConnectorError(redact(errorMessage(err), secrets), (err as { code?: string }).code);
  }
}

/** Rows fingerprinted here: md5 of the seed and the row's exact JSON. */
async function* readFingerprinted(config: Row, options: ReadOptions & { fingerprint: FingerprintOptions }): AsyncGenerator<FingerprintedBatch> {
  for await (const rows of read(config, options)) {
    yield {
      length: rows.length,
      keyValues: rows.map((r) => r[options.fingerprint.primaryKey]),
      fingerprints: rows.map((r) => createHash("md5").update(options.fingerprint.seed).update(exactJson(r)).digest("hex")),
      row: (i) => ({ ...rows[i] }),
    };
  }
}

export const odooSource: SourceConnector = {
  definition: odooSourceDefinition,
  check,
  discover,
  query,
  checkQuery: (q) => void parseOdooQuery(q),
  read,
  readFingerprinted,
};
