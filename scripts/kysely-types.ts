// Writes Kysely's `DB` interface from prisma/schema.prisma, so that a query built with Kysely names
// tables and columns as the database does (@@map, @map) and breaks the build when one is renamed.
// A small reader rather than Prisma's DMMF: the generated client's runtime data model has no
// nullability or defaults, and @prisma/internals is not a dependency. The reader knows the subset of
// the schema language this project uses and refuses anything else, so a new construct fails
// generation loudly instead of producing a wrong type.

export interface SchemaField {
  name: string;
  column: string;
  type: string;
  optional: boolean;
  list: boolean;
  /** @default(...) or @updatedAt: the database (or Prisma) fills it, so an insert may leave it out. */
  hasDefault: boolean;
  /** A relation field (its type is a model): no column. */
  relation: boolean;
}
export interface SchemaModel {
  name: string;
  table: string;
  fields: SchemaField[];
}
export interface SchemaEnum {
  name: string;
  dbName: string;
  values: string[];
}
export interface PrismaSchema {
  models: SchemaModel[];
  enums: SchemaEnum[];
}

const SCALARS: Record<string, string> = {
  String: "string",
  Boolean: "boolean",
  Int: "number",
  Float: "number",
  // pg reads int8 as bigint and timestamps as Date in this project (lib/db/client.ts rawTypes).
  BigInt: "bigint",
  DateTime: "Date",
  // pg returns numeric as text, unlike Prisma's Decimal.
  Decimal: "string",
  Json: "Json",
  Bytes: "Buffer",
};

function stripComment(line: string): string {
  // Comments start with //; string literals in this schema never contain "//".
  const at = line.indexOf("//");
  return (at >= 0 ? line.slice(0, at) : line).trim();
}

function mapName(text: string, attribute: "@map" | "@@map"): string | undefined {
  const re = attribute === "@@map" ? /@@map\(\s*(?:name:\s*)?"([^"]+)"\s*\)/ : /(?<!@)@map\(\s*(?:name:\s*)?"([^"]+)"\s*\)/;
  return re.exec(text)?.[1];
}

/** Reads the models and enums of a Prisma schema. Throws on a block or field it does not understand. */
export function readPrismaSchema(source: string): PrismaSchema {
  const lines = source.split("\n").map(stripComment);
  const blocks: { kind: string; name: string; body: string[] }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line) continue;
    const open = /^(model|enum|generator|datasource|view|type)\s+(\w+)\s*\{$/.exec(line);
    if (!open) throw new Error(`prisma schema line ${i + 1}: expected a block, got "${line}"`);
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== "}"; i++) if (lines[i]) body.push(lines[i]);
    if (i >= lines.length) throw new Error(`prisma schema: block ${open[2]} is not closed`);
    if (open[1] === "view" || open[1] === "type") throw new Error(`prisma schema: ${open[1]} ${open[2]} is not supported by scripts/kysely-types.ts`);
    blocks.push({ kind: open[1], name: open[2], body });
  }
  const enums: SchemaEnum[] = blocks
    .filter((b) => b.kind === "enum")
    .map((b) => ({
      name: b.name,
      dbName: mapName(b.body.join("\n"), "@@map") ?? b.name,
      values: b.body.filter((l) => !l.startsWith("@@")).map((l) => {
        if (!/^\w+$/.test(l)) throw new Error(`prisma schema: enum ${b.name} value "${l}" is not supported`);
        return l;
      }),
    }));
  const modelNames = new Set(blocks.filter((b) => b.kind === "model").map((b) => b.name));
  const enumNames = new Set(enums.map((e) => e.name));
  const models: SchemaModel[] = blocks
    .filter((b) => b.kind === "model")
    .map((b) => ({
      name: b.name,
      table: mapName(b.body.join("\n"), "@@map") ?? b.name,
      fields: b.body
        .filter((l) => !l.startsWith("@@"))
        .map((l) => {
          const m = /^(\w+)\s+(\w+)(\[\])?(\?)?(\s.*)?$/.exec(l);
          if (!m) throw new Error(`prisma schema: model ${b.name} field "${l}" is not supported`);
          const [, name, type, list, optional, rest = ""] = m;
          const relation = modelNames.has(type);
          if (!relation && !enumNames.has(type) && !(type in SCALARS)) {
            throw new Error(`prisma schema: model ${b.name} field ${name} has type ${type}, unknown to scripts/kysely-types.ts`);
          }
          return {
            name,
            column: mapName(rest, "@map") ?? name,
            type,
            optional: optional === "?",
            list: list === "[]",
            hasDefault: /@default\(|@updatedAt\b/.test(rest),
            relation,
          };
        }),
    }));
  return { models, enums };
}

function columnType(field: SchemaField, enumNames: Set<string>): string {
  let type = enumNames.has(field.type) ? field.type : SCALARS[field.type];
  if (field.list) type = `${type}[]`;
  // Prisma migrate creates scalar lists without NOT NULL: a raw read can meet null.
  if (field.optional || field.list) type = `${type} | null`;
  return field.hasDefault ? `Generated<${type}>` : type;
}

/** The TypeScript module: enums as string unions, one interface per table, and `DB` by table name. */
export function kyselyTypes(schema: PrismaSchema): string {
  const enumNames = new Set(schema.enums.map((e) => e.name));
  const out: string[] = [
    "// Generated by scripts/kysely-types.ts from prisma/schema.prisma: do not edit.",
    'import type { ColumnType } from "kysely";',
    "",
    "/** A column the database fills when an insert leaves it out (a default, a sequence, @updatedAt). */",
    "export type Generated<T> = T extends ColumnType<infer S, infer I, infer U> ? ColumnType<S, I | undefined, U> : ColumnType<T, T | undefined, T>;",
    "export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };",
    "",
  ];
  for (const e of schema.enums) out.push(`export type ${e.name} = ${e.values.map((v) => JSON.stringify(v)).join(" | ")};`);
  out.push("");
  for (const model of schema.models) {
    out.push(`export interface ${model.name}Table {`);
    for (const field of model.fields) {
      if (!field.relation) out.push(`  ${field.column}: ${columnType(field, enumNames)};`);
    }
    out.push("}", "");
  }
  out.push("export interface DB {");
  for (const model of schema.models) out.push(`  ${model.table}: ${model.name}Table;`);
  out.push("}", "");
  return out.join("\n");
}
