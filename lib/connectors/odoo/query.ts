// A model of the Odoo source is written as the reference's console writes it, a SELECT over one
// model: `SELECT id, name, email FROM res.partner` or `SELECT * FROM res.partner`, optionally with
// ORDER BY (preview only), LIMIT and OFFSET. It is read with search_read, not run as SQL: anything
// else (WHERE, joins, expressions) is refused with a sentence rather than ignored.
import { ConnectorError } from "../shared/errors";

export interface OdooQuery {
  model: string;
  /** The fields asked for; empty for `*` (every field). */
  fields: string[];
  order?: string;
  limit?: number;
  offset?: number;
}

const NAME = /^[a-z_][a-z0-9_]*$/i;
const MODEL = /^[a-z_][a-z0-9_]*(\.[a-z0-9_]+)*$/i;
const ORDER = /^[a-z_][a-z0-9_]*( (asc|desc))?(\s*,\s*[a-z_][a-z0-9_]*( (asc|desc))?)*$/i;
const SHAPE = /^select\s+(.+?)\s+from\s+("?)([^\s"]+)\2(?:\s+order\s+by\s+(.+?))?(?:\s+limit\s+(\d+))?(?:\s+offset\s+(\d+))?$/is;

export function parseOdooQuery(query: string): OdooQuery {
  const text = query.trim().replace(/;\s*$/, "").replace(/\s+/g, " ");
  const match = SHAPE.exec(text);
  if (!match) {
    throw new ConnectorError("An Odoo model is one model's fields: SELECT <fields or *> FROM <model> [ORDER BY <field> [ASC|DESC]] [LIMIT n] [OFFSET n], e.g. SELECT id, name FROM res.partner.");
  }
  const [, list, , model, order, limit, offset] = match;
  if (!MODEL.test(model)) throw new ConnectorError(`"${model}" is not an Odoo model name (like res.partner).`);
  const fields = list.trim() === "*" ? [] : list.split(",").map((f) => f.trim().replace(/^"(.*)"$/, "$1"));
  const bad = fields.find((f) => !NAME.test(f));
  if (bad !== undefined) throw new ConnectorError(`"${bad}" is not an Odoo field name: list field names or *.`);
  if (order !== undefined && !ORDER.test(order.trim())) throw new ConnectorError(`ORDER BY takes field names with ASC or DESC, not "${order}".`);
  return {
    model,
    fields: [...new Set(fields)],
    ...(order !== undefined ? { order: order.trim() } : {}),
    ...(limit !== undefined ? { limit: Number(limit) } : {}),
    ...(offset !== undefined ? { offset: Number(offset) } : {}),
  };
}
