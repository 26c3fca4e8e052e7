// What Odoo's discovery reads, for the source and the destination alike: the models (ir.model,
// transient wizards left out) and their fields (ir.model.fields, read in pages of a few models,
// not one fields_get per model: a database has hundreds of models). Bounded like every discovery.
import { MAX_DISCOVERED_COLUMNS, MAX_DISCOVERED_STREAMS, MAX_DISCOVERY_PAGES } from "../shared/discovery-limits";
import type { OdooFields } from "./fields";
import type { OdooClient } from "./rpc";

/** Models whose fields one ir.model.fields page asks for. */
const MODELS_PER_PAGE = 50;
/** Field rows one page reads at most. */
const FIELDS_PER_PAGE = 5000;

export interface OdooModel {
  model: string;
  name: string;
  fields: OdooFields;
}

interface FieldRow {
  model: string;
  name: string;
  ttype: string;
  field_description: string | false;
  required: boolean;
  readonly: boolean;
}

export async function odooModels(client: OdooClient): Promise<OdooModel[]> {
  const listed = await client.result<{ model: string; name: string | false }[]>("ir.model", "search_read", [[["transient", "=", false]]], {
    fields: ["model", "name"],
    order: "model",
    limit: MAX_DISCOVERED_STREAMS,
  });
  const models = new Map<string, OdooModel>(listed.map((m) => [m.model, { model: m.model, name: m.name || m.model, fields: {} }]));
  const names = [...models.keys()];
  let pages = 0;
  let columns = 0;
  for (let i = 0; i < names.length; i += MODELS_PER_PAGE) {
    const chunk = names.slice(i, i + MODELS_PER_PAGE);
    for (let offset = 0; ; offset += FIELDS_PER_PAGE) {
      if (++pages > MAX_DISCOVERY_PAGES || columns >= MAX_DISCOVERED_COLUMNS) return [...models.values()];
      const rows = await client.result<FieldRow[]>("ir.model.fields", "search_read", [[["model", "in", chunk]]], {
        fields: ["model", "name", "ttype", "field_description", "required", "readonly"],
        order: "model, id",
        limit: FIELDS_PER_PAGE,
        offset,
      });
      columns += rows.length;
      for (const row of rows) {
        const model = models.get(row.model);
        if (model) model.fields[row.name] = { type: row.ttype, string: row.field_description || row.name, required: row.required, readonly: row.readonly };
      }
      if (rows.length < FIELDS_PER_PAGE) break;
    }
  }
  return [...models.values()];
}
