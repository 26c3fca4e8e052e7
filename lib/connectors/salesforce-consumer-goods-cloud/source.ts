// Salesforce Consumer Goods Cloud source: models are SOQL queries run with the REST API's query
// resource (GET /services/data/vXX.X/query?q=…, then each nextRecordsUrl until done), so a read holds
// one page (up to 2,000 records) at a time; incremental reads add `cursor >= last value` and order
// by the cursor (SystemModstamp or LastModifiedDate), and the engine's fingerprints drop the rows that
// did not change. Discovery describes the reference's objects (Account, User, Visit, RetailStore,
// RecordType) with their fields' types. Relationship fields (Owner.Name) come flattened as
// Owner_Name, as the reference gives them.
import type { Catalog, CheckResult, JsonSchema, QueryResult, ReadOptions, Row, SourceConnector, Stream } from "../types";
import { buildCatalog } from "../shared/catalog";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { redact, secretValues } from "../shared/secrets";
import { JsonNumber } from "../shared/values";
import type { ConnectorDefinition } from "../types";
import { getJson } from "./api";
import { apiVersion, connectionSpecification, CONSUMER_GOODS_OBJECTS, TITLE } from "./config";
import { modelSoql, previewSoql, readSoql } from "./soql";

export const consumerGoodsSourceDefinition: ConnectorDefinition = {
  name: "SalesforceConsumerGoodsCloud",
  title: TITLE,
  connectorType: "source",
  category: "Retail",
  subCategory: "Relational Database",
  icon: "/icons/salesforce-consumer-goods-cloud.svg",
  documentationUrl: "https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_query.htm",
  streamType: "dynamic",
  supportsQuery: true,
  // The password and the client secret go to the login host: a new one needs them entered again.
  secretTargetFields: ["host", "base_url"],
  connectionSpecification,
};

/** Salesforce's page size bounds (Sforce-Query-Options batchSize). */
const MIN_PAGE = 200;
const MAX_PAGE = 2000;
/** Pages one read follows at most (2,000 records each: 200 million records). */
const MAX_PAGES = 100_000;

interface QueryPage {
  totalSize?: number;
  done?: boolean;
  nextRecordsUrl?: string;
  records?: Row[];
}

interface Field {
  name: string;
  label?: string;
  type?: string;
  nillable?: boolean;
}

const data = (config: Row) => `/services/data/${apiVersion(config)}`;

/** A record as a row: attributes dropped, relationships flattened (Owner.Name → Owner_Name), exact numbers as text. */
export function rowOf(record: Row, prefix = ""): Row {
  const row: Row = {};
  for (const [key, value] of Object.entries(record)) {
    if (key === "attributes") continue;
    const name = prefix ? `${prefix}_${key}` : key;
    if (value instanceof JsonNumber) row[name] = value.text;
    else if (value !== null && typeof value === "object" && !Array.isArray(value)) Object.assign(row, rowOf(value as Row, name));
    else row[name] = value;
  }
  return row;
}

function fieldSchema(field: Field): JsonSchema {
  switch (field.type) {
    case "int":
      return { type: ["integer", "null"] };
    case "double":
    case "currency":
    case "percent":
      return { type: ["number", "null"] };
    case "boolean":
      return { type: ["boolean", "null"] };
    case "date":
      return { type: ["string", "null"], format: "date" };
    case "datetime":
      return { type: ["string", "null"], format: "date-time" };
    default:
      return { type: ["string", "null"] };
  }
}

async function scrubbed<T>(config: Row, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new ConnectorError(redact(errorMessage(err), secretValues(config, consumerGoodsSourceDefinition)), (err as { code?: string }).code);
  }
}

async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
  return safeCheck(consumerGoodsSourceDefinition, config, async () => {
    const global = (await getJson(config, `${data(config)}/sobjects`, signal)) as { sobjects?: { name?: string }[] };
    const names = new Set((global.sobjects ?? []).map((o) => o.name));
    const present = CONSUMER_GOODS_OBJECTS.filter((o) => names.has(o));
    return { ok: true, details: `Connected to ${TITLE}; ${present.length > 0 ? `objects ${present.join(", ")} are there.` : "none of the Consumer Goods Cloud objects are visible to this user."}` };
  });
}

async function discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
  return scrubbed(config, async () => {
    const streams: Stream[] = [];
    for (const object of CONSUMER_GOODS_OBJECTS) {
      let fields: Field[];
      try {
        fields = ((await getJson(config, `${data(config)}/sobjects/${object}/describe`, signal)) as { fields?: Field[] }).fields ?? [];
      } catch (err) {
        // An org without the object (Visit and RetailStore come with Consumer Goods Cloud): not offered.
        if (/HTTP 404/.test(errorMessage(err))) continue;
        throw err;
      }
      streams.push({
        name: object,
        action: "fetch",
        url: object,
        json_schema: { type: "object", properties: Object.fromEntries(fields.map((f) => [f.name, { ...fieldSchema(f), ...(f.label ? { title: f.label } : {}) }])) },
        batch_support: false,
        batch_size: 0,
        request_method: "GET",
      });
    }
    return buildCatalog(streams);
  });
}

/** Every page of a SOQL query, following nextRecordsUrl. */
async function* pages(config: Row, soql: string, pageSize: number, signal?: AbortSignal): AsyncGenerator<Row[]> {
  const headers = { "sforce-query-options": `batchSize=${Math.min(MAX_PAGE, Math.max(MIN_PAGE, pageSize))}` };
  let page = (await getJson(config, `${data(config)}/query?q=${encodeURIComponent(soql)}`, signal, headers)) as QueryPage;
  for (let fetched = 1; ; fetched++) {
    yield (page.records ?? []).map((r) => rowOf(r));
    const next = page.nextRecordsUrl;
    if (page.done !== false || !next) return;
    // The locator is Salesforce's path under the same instance; anything else is not followed.
    if (!/^\/services\/data\/v\d{2,3}\.0\/query\/[A-Za-z0-9-]+$/.test(next)) throw new ConnectorError(`${TITLE} answered an unexpected nextRecordsUrl (${next.slice(0, 80)}).`);
    if (fetched >= MAX_PAGES) throw new ConnectorError(`${TITLE} answered more than ${MAX_PAGES} pages; the read was stopped.`);
    page = (await getJson(config, next, signal, headers)) as QueryPage;
  }
}

async function query(config: Row, soql: string, limit: number, signal?: AbortSignal): Promise<QueryResult> {
  return scrubbed(config, async () => {
    const n = Math.max(1, Math.floor(limit));
    const rows: Row[] = [];
    for await (const page of pages(config, previewSoql(soql, n), n, signal)) {
      rows.push(...page.slice(0, n - rows.length));
      if (rows.length >= n) break;
    }
    const columns = Object.keys(rows[0] ?? {}).map((name) => ({ name, type: typeof rows[0][name] === "number" ? "number" : typeof rows[0][name] === "boolean" ? "boolean" : "string" }));
    return { columns, rows };
  });
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  const soql = readSoql(options.query, options.cursorField, options.cursorValue);
  try {
    let pending: Row[] = [];
    for await (const page of pages(config, soql, batchSize, options.signal)) {
      pending.push(...page);
      while (pending.length >= batchSize) {
        yield pending.slice(0, batchSize);
        pending = pending.slice(batchSize);
      }
    }
    if (pending.length > 0) yield pending;
  } catch (err) {
    throw new ConnectorError(redact(errorMessage(err), secretValues(config, consumerGoodsSourceDefinition)), (err as { code?: string }).code);
  }
}

export const consumerGoodsSource: SourceConnector = {
  definition: consumerGoodsSourceDefinition,
  check,
  discover,
  query,
  checkQuery: (soql) => void modelSoql(soql),
  read,
};
