// Odoo's field types (fields_get's `type`) as JSON Schema, and values both ways. Odoo answers
// `false` for an empty field of any type but boolean; a many2one is [id, display name]; one2many
// and many2many are lists of ids. Rows carry null for empty, the id of a many2one, and the id list
// of an x2many. Writes take a many2one's id (a number, or its digits as text) and an x2many's ids
// (a list, or its JSON text) as Odoo's create replaces the set with them: [[6, 0, ids]].
import { ConnectorError } from "../shared/errors";
import { markedNumber } from "../shared/values";
import type { JsonSchema, Row } from "../types";

export interface OdooField {
  type: string;
  string?: string;
  required?: boolean;
  readonly?: boolean;
  selection?: [string, string][] | string;
}

export type OdooFields = Record<string, OdooField>;

/** fields_get's attributes discovery and reads ask for. */
export const FIELD_ATTRIBUTES = ["type", "string", "required", "readonly", "selection"];

const X2MANY = new Set(["one2many", "many2many"]);

export function fieldSchema(field: OdooField, nullable = true): JsonSchema {
  const type = (t: string) => (nullable ? [t, "null"] : t);
  const described = { title: field.string ?? "", description: `Odoo ${field.type} field` };
  switch (field.type) {
    case "integer":
    case "many2one":
    case "many2one_reference":
      return { type: type("integer"), ...described };
    case "float":
    case "monetary":
      return { type: type("number"), ...described };
    case "boolean":
      return { type: "boolean", ...described };
    case "date":
      return { type: type("string"), format: "date", ...described };
    case "datetime":
      // Odoo's text is "YYYY-MM-DD HH:MM:SS" in UTC.
      return { type: type("string"), ...described };
    case "one2many":
    case "many2many":
      return { type: type("array"), items: { type: "integer" }, ...described };
    case "json":
    case "properties":
      return { ...described };
    default:
      return { type: type("string"), ...described };
  }
}

/** A value as Odoo answered it, as a row carries it. */
export function rowValue(value: unknown, field: OdooField | undefined): unknown {
  const type = field?.type;
  if (type === "boolean") return value;
  if (value === false) return null;
  if (type === "many2one" && Array.isArray(value)) return value[0] ?? null;
  return value;
}

export function rowOf(record: Row, fields: OdooFields, names: readonly string[]): Row {
  const row: Row = {};
  for (const name of names) if (name in record) row[name] = rowValue(record[name], fields[name]);
  return row;
}

const integerOf = (value: unknown): number | undefined => {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? (markedNumber(value) ?? value.trim()) : undefined;
  return text !== undefined && /^-?\d{1,15}$/.test(text) ? Number(text) : undefined;
};

/** A payload's value as Odoo's create takes it; a value its field cannot take fails the record. */
export function writeValue(column: string, value: unknown, field: OdooField | undefined): unknown {
  if (value === null || value === undefined) return false;
  const type = field?.type;
  if (type === "many2one") {
    const id = integerOf(value);
    if (id === undefined) throw new ConnectorError(`Column "${column}" is a many2one of Odoo: it takes a record id, not ${JSON.stringify(value)}.`);
    return id;
  }
  if (type && X2MANY.has(type)) {
    let list: unknown = value;
    if (typeof value === "string") {
      try {
        list = JSON.parse(value) as unknown;
      } catch {
        list = undefined;
      }
    }
    const ids = Array.isArray(list) ? list.map(integerOf) : [undefined];
    if (ids.some((id) => id === undefined)) throw new ConnectorError(`Column "${column}" is a ${type} of Odoo: it takes a list of record ids, not ${JSON.stringify(value)}.`);
    return [[6, 0, ids]];
  }
  return value;
}

/** The create values of a payload: only the model's fields, each as its type takes it. */
export function createValues(payload: Row, fields: OdooFields, model: string): Row {
  const values: Row = {};
  for (const [column, value] of Object.entries(payload)) {
    const field = fields[column];
    if (!field) throw new ConnectorError(`Column "${column}" is not a field of the Odoo model ${model}.`);
    values[column] = writeValue(column, value, field);
  }
  return values;
}
