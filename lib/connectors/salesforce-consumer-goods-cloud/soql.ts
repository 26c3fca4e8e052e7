// The SOQL a read sends: the model's query checked to be one SELECT, the incremental cursor's
// condition and order added, and cursor values written as SOQL literals (datetimes unquoted,
// strings quoted with SOQL's escapes). Salesforce's SOQL grammar: developer.salesforce.com (SOQL and
// SOSL Reference: SELECT, WHERE, field expressions, date formats).
import { ConnectorError } from "../shared/errors";

const FIELD = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$/;

/** The model's SOQL, trimmed; throws ConnectorError unless it is one SELECT. */
export function modelSoql(query: string): string {
  const soql = query.trim().replace(/;\s*$/, "");
  if (!/^SELECT\s/i.test(soql)) throw new ConnectorError("The query must be one SOQL SELECT, e.g. SELECT Id, Name FROM Account.");
  if (soql.includes(";")) throw new ConnectorError("The query must be a single SOQL statement: remove the `;` and everything after it.");
  return soql;
}

/** A cursor value as a SOQL literal: numbers, booleans, dates and datetimes bare, text quoted. */
export function soqlLiteral(value: string): string {
  if (/^-?\d+(\.\d+)?$/.test(value) || /^(true|false)$/i.test(value) || /^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(value)) {
    const time = Date.parse(value.replace(" ", "T").replace(/([+-]\d{2})(\d{2})$/, "$1:$2"));
    // SOQL takes whole seconds: rounding down keeps the boundary row (it is re-read, and its fingerprint says unchanged).
    if (Number.isFinite(time)) return new Date(Math.floor(time / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  }
  return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n").replace(/\r/g, "\\r")}'`;
}

/** The read's SOQL: the model's, plus `cursor >= value` and ORDER BY cursor for incremental reads. */
export function readSoql(query: string, cursorField?: string, cursorValue?: string | null): string {
  const soql = modelSoql(query);
  if (!cursorField) return soql;
  if (!FIELD.test(cursorField)) throw new ConnectorError(`"${cursorField}" is not a Salesforce field name.`);
  if (/\s(ORDER\s+BY|LIMIT|OFFSET|GROUP\s+BY|FOR\s+UPDATE)\s/i.test(`${soql} `)) {
    throw new ConnectorError("An incremental model's SOQL cannot have ORDER BY, LIMIT, OFFSET or GROUP BY: the cursor field orders the read.");
  }
  const order = ` ORDER BY ${cursorField} ASC`;
  if (cursorValue === undefined || cursorValue === null) return `${soql}${order}`;
  const condition = `${cursorField} >= ${soqlLiteral(cursorValue)}`;
  const where = /\sWHERE\s/i.exec(soql);
  if (!where) return `${soql} WHERE ${condition}${order}`;
  const at = where.index + where[0].length;
  return `${soql.slice(0, at)}(${soql.slice(at)}) AND ${condition}${order}`;
}

/** The SOQL of a preview: at most `limit` rows. */
export function previewSoql(query: string, limit: number): string {
  const soql = modelSoql(query);
  const existing = /\sLIMIT\s+(\d+)\s*$/i.exec(soql);
  if (existing) return `${soql.slice(0, existing.index)} LIMIT ${Math.min(limit, Number(existing[1]))}`;
  return `${soql} LIMIT ${limit}`;
}
