// The Odoo destination: each record becomes a new record of the stream's model through
// execute_kw(model, "create", [[values, …]]), up to 100 records a call; Odoo answers their ids in
// order, or refuses the call whole with a JSON-RPC error naming the exception (a ValidationError,
// a missing required field, an AccessError); a refused call is split until the refusal is pinned
// on its record.
// Values are checked first against the model's fields (fields.ts): a column the model lacks, or a
// value its field cannot take, fails that record alone. Throttling (HTTP 429 from Odoo Online or
// a proxy) and unavailability (502/503/504) come back retryable with their Retry-After.
import type { Catalog, CheckResult, DestinationConnector, RecordLog, Row, WriteOptions, WriteOutcome, WriteRecord } from "../types";
import { buildCatalog } from "../shared/catalog";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { redact, secretValues } from "../shared/secrets";
import { odooModels } from "./catalog";
import { odooDestinationDefinition, odooSettings } from "./definition";
import { createValues, FIELD_ATTRIBUTES, fieldSchema, type OdooFields } from "./fields";
import { truncate } from "@/lib/net/http";
import { exactJson } from "../shared/values";
import { FAULT_TEXT_LIMIT, FIELDS_ANSWER_BYTES, OdooClient, OdooFault, OdooHttpError, SMALL_ANSWER_BYTES } from "./rpc";

/** Records one create call carries. */
const MAX_RECORDS = 100;

const definition = odooDestinationDefinition;

async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
  return safeCheck(definition, config, async () => {
    const client = new OdooClient(odooSettings(config), signal);
    const version = await client.version();
    const uid = await client.login();
    const { database, username } = client.settings;
    return { ok: true, details: `Connected to Odoo ${version}, database "${database}", as ${username} (user id ${uid}).` };
  });
}

async function discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
  try {
    const client = new OdooClient(odooSettings(config), signal);
    const models = await odooModels(client);
    return buildCatalog(
      models.map((m) => {
        // What create can set: computed fields without an inverse are read-only.
        const writable = Object.entries(m.fields).filter(([name, f]) => !f.readonly && name !== "id");
        return {
          name: m.model,
          action: "create" as const,
          url: `${client.settings.url}/jsonrpc`,
          json_schema: {
            type: "object",
            title: m.name,
            required: writable.filter(([, f]) => f.required).map(([name]) => name),
            properties: Object.fromEntries(writable.map(([name, f]) => [name, fieldSchema(f, !f.required)])),
          },
          batch_support: true,
          batch_size: MAX_RECORDS,
          request_method: "POST" as const,
        };
      }),
    );
  } catch (err) {
    throw new ConnectorError(redact(errorMessage(err), secretValues(config, definition)), (err as { code?: string }).code);
  }
}

const failed = (record: WriteRecord, error: string, extra: Partial<WriteOutcome> = {}): WriteOutcome => ({ key: record.key, ok: false, error, retryable: false, ...extra });

function log(model: string, values: Row, count: number, index: number, response: RecordLog["response"], ok: boolean): RecordLog {
  const line = `execute_kw ${model}.create`;
  return { request: { line: count > 1 ? `${line} (record ${index + 1} of ${count} in one call)` : line, body: values }, response, level: ok ? "info" : "error" };
}

/**
 * One create call for `group`; one outcome per record, read from Odoo's answer, and whether Odoo
 * refused the call (a JSON-RPC error: nothing of it was created). The records of one call share
 * one response log part (the engine scrubs and stores it once) and the same bounded error text.
 */
async function create(client: OdooClient, model: string, group: { record: WriteRecord; values: Row }[]): Promise<{ outcomes: WriteOutcome[]; refused: boolean }> {
  const count = group.length;
  try {
    const { result } = await client.execute(model, "create", [group.map((g) => g.values)], {}, SMALL_ANSWER_BYTES);
    // One id per record, in order (a single dict would answer one id).
    const ids = Array.isArray(result) ? result : [result];
    if (ids.length !== count || ids.some((id) => typeof id !== "number")) {
      const shown = truncate(exactJson(result), FAULT_TEXT_LIMIT);
      const error = `Odoo answered ${shown.slice(0, 200)} for ${count} records; none can be trusted.`;
      const response = { line: "unexpected answer", body: shown };
      return { outcomes: group.map((g, i) => failed(g.record, error, { log: log(model, g.values, count, i, response, false) })), refused: false };
    }
    return {
      outcomes: group.map((g, i) => ({ key: g.record.key, ok: true, status: 200, log: log(model, g.values, count, i, { line: `created ${model} id ${String(ids[i])}`, body: ids[i] }, true) })),
      refused: false,
    };
  } catch (err) {
    if (err instanceof OdooFault) {
      // err.message is already cut to FAULT_TEXT_LIMIT (rpc.ts).
      const error = `Odoo refused the record: ${err.message}`;
      const response = { line: "JSON-RPC error", body: err.message };
      return { outcomes: group.map((g, i) => failed(g.record, error, { status: 200, log: log(model, g.values, count, i, response, false) })), refused: true };
    }
    if (err instanceof OdooHttpError) {
      const response = { line: err.message };
      const outcomes = group.map((g, i) =>
        failed(g.record, err.message, {
          status: err.status,
          retryable: err.retryable,
          ...(err.retryAfterSeconds !== undefined ? { retryAfterSeconds: err.retryAfterSeconds } : {}),
          log: log(model, g.values, count, i, response, false),
        }),
      );
      return { outcomes, refused: false };
    }
    throw err;
  }
}

async function writeAll(client: OdooClient, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]> {
  const model = options.stream.name;
  const outcomes: WriteOutcome[] = [];
  let fields: OdooFields;
  try {
    fields = await client.result<OdooFields>(model, "fields_get", [], { attributes: FIELD_ATTRIBUTES }, FIELDS_ANSWER_BYTES);
  } catch (err) {
    if (!(err instanceof ConnectorError)) throw err;
    const retryable = err instanceof OdooHttpError && err.retryable;
    const wait = err instanceof OdooHttpError && err.retryAfterSeconds !== undefined ? { retryAfterSeconds: err.retryAfterSeconds } : {};
    return records.map((r) => failed(r, err.message, { retryable, ...wait, ...(err instanceof OdooHttpError ? { status: err.status } : {}) }));
  }
  const ready: { record: WriteRecord; values: Row }[] = [];
  for (const record of records) {
    if (record.action === "delete" || record.action === "update") {
      outcomes.push(failed(record, `The Odoo destination creates records; it cannot ${record.action} them.`));
      continue;
    }
    try {
      ready.push({ record, values: createValues(record.payload, fields, model) });
    } catch (err) {
      if (!(err instanceof ConnectorError)) throw err;
      outcomes.push(failed(record, err.message));
    }
  }
  const size = options.batch ? MAX_RECORDS : 1;
  for (let i = 0; i < ready.length; i += size) outcomes.push(...(await createIsolating(client, model, ready.slice(i, i + size))));
  return outcomes;
}

/**
 * A call Odoo refused is one rolled-back transaction: nothing of it was created. Its halves are
 * sent again until each refusal is pinned on its own record (the engine's bisection would not
 * start when records failed before sending in the same chunk).
 */
async function createIsolating(client: OdooClient, model: string, group: { record: WriteRecord; values: Row }[]): Promise<WriteOutcome[]> {
  // Only Odoo's own refusal is split: an answer that is not JSON-RPC (too long, broken) says nothing
  // about which record, and splitting on it would multiply the calls to a hostile server.
  const { outcomes, refused } = await create(client, model, group);
  if (group.length < 2 || !refused) return outcomes;
  const middle = Math.ceil(group.length / 2);
  return [...(await createIsolating(client, model, group.slice(0, middle))), ...(await createIsolating(client, model, group.slice(middle)))];
}

async function write(config: Row, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]> {
  if (records.length === 0) return [];
  const secrets = secretValues(config, definition);
  let outcomes: WriteOutcome[];
  try {
    outcomes = await writeAll(new OdooClient(odooSettings(config), options.signal), records, options);
  } catch (err) {
    if (!(err instanceof ConnectorError)) throw err;
    // The login failed (or the settings are wrong): no record was sent.
    const retryable = err instanceof OdooHttpError && err.retryable;
    outcomes = records.map((r) => failed(r, err.message, { retryable, ...(err instanceof OdooHttpError ? { status: err.status, ...(err.retryAfterSeconds !== undefined ? { retryAfterSeconds: err.retryAfterSeconds } : {}) } : {}) }));
  }
  for (const o of outcomes) if (o.error) o.error = redact(o.error, secrets);
  return outcomes;
}

export const odooDestination: DestinationConnector = { definition, check, discover, write };
