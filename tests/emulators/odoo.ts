// An Odoo external API emulator over JSON-RPC 2.0 (POST /jsonrpc, method "call", params {service,
// method, args}), written from Odoo's "External API" documentation (odoo.com/documentation/17.0/
// developer/reference/external_api.html: common.version, common.authenticate, object.execute_kw
// with search_read's domain/fields/offset/limit/order, fields_get, create, ir.model and
// ir.model.fields) and the ORM reference for domains (prefix '&' '|' '!' and [field, op, value]).
// Errors are JSON-RPC error objects {code: 200, message: "Odoo Server Error", data: {name, message}}
// as Odoo's JSON-RPC dispatcher serialises exceptions; the exception names and sentences are our
// reading of the ORM's (ValidationError for a missing required field or a failed constraint,
// ValueError for a wrong field or value, AccessDenied for a bad password). Odoo publishes no API
// rate limit; Odoo Online and proxies in front of a server answer HTTP 429 with Retry-After, which
// `window` emulates. Tests only.
import type { ServerResponse } from "node:http";
// Not ./common: that module loads the engine's Loader, and the Playwright spec starts this emulator too.
import { json, startHttpServer as startEmulator, type ReceivedRequest } from "../support/connectors";

type Row = Record<string, unknown>;

/** `max` calls per `windowMs`, per key: the throttling front of an Odoo Online database. */
class CallWindow {
  private start = 0;
  private count = 0;
  constructor(
    public max: number,
    public windowMs: number,
  ) {}
  hit(now = Date.now()): boolean {
    if (now - this.start >= this.windowMs) {
      this.start = now;
      this.count = 0;
    }
    return ++this.count <= this.max;
  }
  reset(): void {
    this.start = 0;
    this.count = 0;
  }
}

function parseBody(req: ReceivedRequest): unknown {
  try {
    return JSON.parse(req.body);
  } catch {
    return undefined;
  }
}

export interface EmulatedField {
  type: string;
  string: string;
  required?: boolean;
  readonly?: boolean;
  relation?: string;
}

export interface EmulatedModel {
  name: string;
  transient?: boolean;
  fields: Record<string, EmulatedField>;
  /** A constraint checked on create (as @api.constrains would): a sentence when the values break it. */
  constraint?: (values: Row) => string | undefined;
}

const common = (extra: Record<string, EmulatedField>): Record<string, EmulatedField> => ({
  id: { type: "integer", string: "ID", readonly: true },
  display_name: { type: "char", string: "Display Name", readonly: true },
  ...extra,
  create_date: { type: "datetime", string: "Created on", readonly: true },
  write_date: { type: "datetime", string: "Last Updated on", readonly: true },
});

export const ODOO_MODELS: Record<string, EmulatedModel> = {
  "res.partner": {
    name: "Contact",
    fields: common({
      name: { type: "char", string: "Name", required: true },
      email: { type: "char", string: "Email" },
      is_company: { type: "boolean", string: "Is a Company" },
      credit_limit: { type: "float", string: "Credit Limit" },
      parent_id: { type: "many2one", string: "Related Company", relation: "res.partner" },
      category_id: { type: "many2many", string: "Tags", relation: "res.partner.category" },
    }),
    constraint: (values) => (typeof values.email === "string" && values.email !== "" && !values.email.includes("@") ? `Invalid Email! Please enter a valid email address: ${values.email}` : undefined),
  },
  "res.partner.category": { name: "Contact Tag", fields: common({ name: { type: "char", string: "Tag Name", required: true } }) },
  "base.language.install": { name: "Install Language", transient: true, fields: common({ lang_ids: { type: "many2many", string: "Languages" } }) },
};

const UID = 2;

/** Odoo's datetime text: UTC, "YYYY-MM-DD HH:MM:SS". */
export const odooNow = (at = new Date()) => at.toISOString().slice(0, 19).replace("T", " ");

class Fault extends Error {
  constructor(
    readonly exception: string,
    message: string,
  ) {
    super(message);
  }
}

const isEmpty = (v: unknown) => v === false || v === null || v === undefined;

function compare(a: unknown, b: unknown): number {
  if (isEmpty(a) && isEmpty(b)) return 0;
  if (isEmpty(a)) return 1; // ASC NULLS LAST, as PostgreSQL sorts
  if (isEmpty(b)) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function term(row: Row, [field, op, value]: [string, string, unknown]): boolean {
  const v = Array.isArray(row[field]) && (row[field] as unknown[]).length === 2 && typeof (row[field] as unknown[])[1] === "string" ? (row[field] as unknown[])[0] : row[field];
  switch (op) {
    case "=":
      return isEmpty(value) ? isEmpty(v) : v === value;
    case "!=":
      return isEmpty(value) ? !isEmpty(v) : v !== value;
    case ">":
    case ">=":
    case "<":
    case "<=": {
      if (isEmpty(v) || isEmpty(value)) return false;
      const c = compare(v, value);
      return op === ">" ? c > 0 : op === ">=" ? c >= 0 : op === "<" ? c < 0 : c <= 0;
    }
    case "in":
      return Array.isArray(value) && value.includes(v);
    case "not in":
      return Array.isArray(value) && !value.includes(v);
    case "ilike":
      return typeof v === "string" && v.toLowerCase().includes(String(value).toLowerCase());
    default:
      throw new Fault("builtins.ValueError", `Invalid leaf ${JSON.stringify([field, op, value])}`);
  }
}

/** A domain in prefix notation; consecutive terms are joined by '&'. */
function matches(row: Row, domain: unknown[]): boolean {
  let at = 0;
  const next = (): boolean => {
    const item = domain[at++];
    if (item === "&") return [next(), next()].every(Boolean);
    if (item === "|") return [next(), next()].some(Boolean);
    if (item === "!") return !next();
    if (!Array.isArray(item) || item.length !== 3) throw new Fault("builtins.ValueError", `Invalid domain term ${JSON.stringify(item)}`);
    return term(row, item as [string, string, unknown]);
  };
  let ok = true;
  while (at < domain.length) ok = next() && ok;
  return ok;
}

function sorter(order: string): (a: Row, b: Row) => number {
  const keys = order.split(",").map((part) => {
    const [field, dir] = part.trim().split(/\s+/);
    return { field, desc: dir?.toLowerCase() === "desc" };
  });
  return (a, b) => {
    for (const { field, desc } of keys) {
      const c = compare(a[field], b[field]);
      if (c !== 0) return desc ? -c : c;
    }
    return 0;
  };
}

export interface OdooEmulatorOptions {
  database: string;
  login: string;
  password: string;
  /** Calls per minute per login before HTTP 429 (default: no limit). */
  perMinute?: number;
  version?: string;
}

/**
 * Answers no real Odoo gives, for the connectors' bounds (set on the emulator, cleared by reset):
 * `faultBytes`: every create is refused with an exception message this long; `createAnswer`: create
 * answers this result whatever it was sent; `repeatPage`: search_read answers the first full page
 * again whatever the domain (a keyset read that never advances); `endless`: search_read makes up a
 * full page of new records, ids ever growing, on every call.
 */
export interface OdooHostility {
  faultBytes?: number;
  createAnswer?: unknown;
  repeatPage?: boolean;
  endless?: boolean;
}

export async function startOdooEmulator(options: OdooEmulatorOptions) {
  const window = new CallWindow(options.perMinute ?? Number.POSITIVE_INFINITY, 60_000);
  const hostile: OdooHostility = {};
  let madeUp = 0;
  const tables = new Map<string, Row[]>(Object.keys(ODOO_MODELS).map((m) => [m, []]));
  let nextId = 1;
  const calls: { service: string; method: string; model?: string; modelMethod?: string; args: unknown[] }[] = [];

  const modelOf = (name: string): EmulatedModel => {
    const model = ODOO_MODELS[name];
    if (!model && name !== "ir.model" && name !== "ir.model.fields") throw new Fault("builtins.KeyError", `Object ${name} doesn't exist`);
    return model;
  };

  /** What Odoo's read answers for a stored record: many2one as [id, name], empty as false. */
  function readRow(modelName: string, row: Row, fields: string[]): Row {
    const model = ODOO_MODELS[modelName];
    const names = fields.length > 0 ? [...new Set(["id", ...fields])] : Object.keys(model?.fields ?? row);
    const out: Row = {};
    for (const name of names) {
      const field = model?.fields[name];
      if (model && !field) throw new Fault("builtins.ValueError", `Invalid field '${name}' on model '${modelName}'`);
      const value = row[name];
      if (field?.type === "many2one" && typeof value === "number") {
        const target = tables.get(field.relation ?? "")?.find((r) => r.id === value);
        out[name] = [value, String(target?.display_name ?? target?.name ?? value)];
      } else if (field?.type === "boolean") out[name] = value === true;
      else if (field?.type === "many2many" || field?.type === "one2many") out[name] = Array.isArray(value) ? value : [];
      else out[name] = isEmpty(value) ? false : value;
    }
    return out;
  }

  function metaRows(modelName: string): Row[] {
    const entries = Object.entries(ODOO_MODELS);
    if (modelName === "ir.model") return entries.map(([model, m], i) => ({ id: i + 1, model, name: m.name, transient: m.transient === true }));
    let id = 1;
    return entries.flatMap(([model, m]) =>
      Object.entries(m.fields).map(([name, f]) => ({ id: id++, model, name, ttype: f.type, field_description: f.string, required: f.required === true, readonly: f.readonly === true })),
    );
  }

  function searchRead(modelName: string, args: unknown[], kwargs: Row): Row[] {
    const domain = (args[0] ?? kwargs.domain ?? []) as unknown[];
    const fields = (kwargs.fields ?? args[1] ?? []) as string[];
    const meta = modelName === "ir.model" || modelName === "ir.model.fields";
    if (!meta && hostile.repeatPage) return (tables.get(modelName) ?? []).slice(0, Number(kwargs.limit ?? 80)).map((r) => readRow(modelName, r, fields));
    if (!meta && hostile.endless) {
      return Array.from({ length: Number(kwargs.limit ?? 80) }, () => {
        madeUp++;
        return readRow(modelName, { id: 1_000_000 + madeUp, name: `Made up ${madeUp}`, write_date: odooNow() }, fields);
      });
    }
    const rows = modelName === "ir.model" || modelName === "ir.model.fields" ? metaRows(modelName) : (tables.get(modelName) ?? []);
    const found = rows.filter((r) => matches(r, domain)).sort(sorter(typeof kwargs.order === "string" && kwargs.order !== "" ? kwargs.order : "id"));
    const offset = Number(kwargs.offset ?? 0);
    const limit = kwargs.limit === undefined || kwargs.limit === false || kwargs.limit === null ? undefined : Number(kwargs.limit);
    const page = found.slice(offset, limit === undefined ? undefined : offset + limit);
    if (modelName === "ir.model" || modelName === "ir.model.fields") return page.map((r) => (fields.length > 0 ? Object.fromEntries(["id", ...fields].map((f) => [f, r[f]])) : r));
    return page.map((r) => readRow(modelName, r, fields));
  }

  function fieldsGet(modelName: string, kwargs: Row): Row {
    const model = modelOf(modelName);
    const attributes = (kwargs.attributes ?? []) as string[];
    return Object.fromEntries(
      Object.entries(model.fields).map(([name, f]) => {
        const all: Row = { type: f.type, string: f.string, required: f.required === true, readonly: f.readonly === true, ...(f.relation ? { relation: f.relation } : {}) };
        return [name, attributes.length > 0 ? Object.fromEntries(attributes.filter((a) => a in all).map((a) => [a, all[a]])) : all];
      }),
    );
  }

  /** One record's stored values, checked as the ORM would; throws a Fault for the whole call. */
  function validated(modelName: string, values: Row): Row {
    const model = modelOf(modelName);
    const row: Row = {};
    for (const [name, value] of Object.entries(values)) {
      const field = model.fields[name];
      if (!field) throw new Fault("builtins.ValueError", `Invalid field '${name}' on model '${modelName}'`);
      if (field.readonly) continue;
      if (value === false || value === null) {
        row[name] = field.type === "boolean" ? false : null;
        continue;
      }
      switch (field.type) {
        case "integer":
        case "many2one":
          if (typeof value !== "number" || !Number.isInteger(value)) throw new Fault("builtins.ValueError", `invalid literal for int() with base 10: ${JSON.stringify(value)}`);
          if (field.type === "many2one" && !tables.get(field.relation ?? "")?.some((r) => r.id === value)) {
            throw new Fault("odoo.exceptions.ValidationError", `The operation cannot be completed: another model requires the record being deleted. If possible, archive it instead.\n\nModel: ${model.name} (${modelName})\nField: ${field.string} (${name})`);
          }
          break;
        case "float":
        case "monetary":
          if (typeof value !== "number" && !(typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value))) throw new Fault("builtins.ValueError", `could not convert string to float: '${String(value)}'`);
          break;
        case "many2many":
        case "one2many": {
          const command = Array.isArray(value) ? (value as unknown[])[0] : undefined;
          if (!Array.isArray(command) || command[0] !== 6 || !Array.isArray(command[2])) throw new Fault("builtins.ValueError", `Wrong value for ${modelName}.${name}: ${JSON.stringify(value)}`);
          row[name] = command[2];
          continue;
        }
      }
      row[name] = value;
    }
    for (const [name, field] of Object.entries(model.fields)) {
      if (field.required && isEmpty(row[name])) {
        throw new Fault("odoo.exceptions.ValidationError", `The operation cannot be completed: - Create/update: a mandatory field is not set.\n\nModel: ${model.name} (${modelName})\nField: ${field.string} (${name})`);
      }
    }
    const broken = model.constraint?.(row);
    if (broken) throw new Fault("odoo.exceptions.ValidationError", broken);
    return row;
  }

  /** create(vals) answers an id, create([vals, …]) the ids; a refusal creates none (one transaction). */
  function create(modelName: string, args: unknown[]): unknown {
    if (hostile.faultBytes !== undefined) throw new Fault("odoo.exceptions.ValidationError", `Refused: ${"x".repeat(hostile.faultBytes)}`);
    if (hostile.createAnswer !== undefined) return hostile.createAnswer;
    const given = args[0];
    const list = Array.isArray(given) ? (given as Row[]) : [given as Row];
    const rows = list.map((values) => validated(modelName, values ?? {}));
    const now = odooNow();
    const ids = rows.map((row) => {
      const id = nextId++;
      tables.get(modelName)!.push({ ...row, id, display_name: row.name ?? `${modelName},${id}`, create_date: now, write_date: now });
      return id;
    });
    return Array.isArray(given) ? ids : ids[0];
  }

  function executeKw(args: unknown[]): unknown {
    const [db, uid, password, model, method, margs = [], kwargs = {}] = args as [string, number, string, string, string, unknown[], Row];
    if (db !== options.database) throw new Fault("psycopg2.OperationalError", `FATAL:  database "${db}" does not exist`);
    if (uid !== UID || password !== options.password) throw new Fault("odoo.exceptions.AccessDenied", "Access Denied");
    if (model !== "ir.model" && model !== "ir.model.fields") modelOf(model);
    switch (method) {
      case "search_read":
        return searchRead(model, margs, kwargs);
      case "search_count":
        return (tables.get(model) ?? []).filter((r) => matches(r, (margs[0] ?? []) as unknown[])).length;
      case "fields_get":
        return fieldsGet(model, kwargs);
      case "create":
        return create(model, margs);
      default:
        throw new Fault("builtins.AttributeError", `The method '${method}' does not exist on the model '${model}'`);
    }
  }

  function dispatch(service: string, method: string, args: unknown[]): unknown {
    if (service === "common" && method === "version") {
      const version = options.version ?? "17.0";
      return { server_version: version, server_version_info: [...version.split(".").map(Number), "final", 0, ""], server_serie: version, protocol_version: 1 };
    }
    if (service === "common" && method === "authenticate") {
      const [db, login, password] = args as string[];
      if (db !== options.database) throw new Fault("psycopg2.OperationalError", `FATAL:  database "${db}" does not exist`);
      return login === options.login && password === options.password ? UID : false;
    }
    if (service === "object" && method === "execute_kw") return executeKw(args);
    throw new Fault("builtins.NameError", `${service}.${method} is not a service method`);
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    const url = new URL(req.url, "http://emulator");
    if (req.method !== "POST" || url.pathname !== "/jsonrpc") return json(res, 404, { error: "Not Found" });
    const body = parseBody(req) as { id?: unknown; params?: { service?: string; method?: string; args?: unknown[] } } | undefined;
    const id = body?.id ?? null;
    const { service = "", method = "", args = [] } = body?.params ?? {};
    calls.push({ service, method, args, ...(method === "execute_kw" ? { model: String(args[3]), modelMethod: String(args[4]) } : {}) });
    if (!window.hit()) {
      res.writeHead(429, { "content-type": "text/html", "retry-after": "2" });
      res.end("<h1>Too Many Requests</h1>");
      return;
    }
    try {
      json(res, 200, { jsonrpc: "2.0", id, result: dispatch(service, method, args) });
    } catch (err) {
      const fault = err instanceof Fault ? err : new Fault("builtins.Exception", String(err));
      json(res, 200, { jsonrpc: "2.0", id, error: { code: 200, message: "Odoo Server Error", data: { name: fault.exception, debug: `Traceback (most recent call last):\n${fault.exception}: ${fault.message}`, message: fault.message, arguments: [fault.message], context: {} } } });
    }
  }

  const server = await startEmulator(handle);
  return {
    ...server,
    calls,
    window,
    tables,
    hostile,
    /** Stores records as they are (ids given or assigned), bypassing the ORM. */
    seed(model: string, rows: Row[]) {
      for (const row of rows) {
        const id = typeof row.id === "number" ? row.id : nextId++;
        nextId = Math.max(nextId, id + 1);
        tables.get(model)!.push({ display_name: row.name, create_date: odooNow(), write_date: odooNow(), ...row, id });
      }
    },
    reset() {
      for (const rows of tables.values()) rows.length = 0;
      calls.length = 0;
      window.reset();
      nextId = 1;
      for (const key of Object.keys(hostile) as (keyof OdooHostility)[]) delete hostile[key];
      madeUp = 0;
    },
  };
}
