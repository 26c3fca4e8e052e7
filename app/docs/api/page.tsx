// /docs/api - the API reference, rendered on the server from the same OpenAPI document that
// GET /api/v1/openapi.json serves (no client code, no external assets).
import type { Metadata } from "next";
import Link from "next/link";
import { TAGS } from "@/lib/contract";
import { openApiDocument } from "@/lib/openapi/document";

export const metadata: Metadata = { title: "API reference" };

interface Schema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  default?: unknown;
  $ref?: string;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface OperationView {
  method: string;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
  "x-permission"?: string;
}

const METHOD_COLORS: Record<string, string> = {
  get: "bg-sky-100 text-sky-800",
  post: "bg-emerald-100 text-emerald-800",
  put: "bg-amber-100 text-amber-800",
  patch: "bg-violet-100 text-violet-800",
  delete: "bg-red-100 text-red-800",
};

function typeOf(s: Schema): string {
  if (s.$ref) return s.$ref.split("/").at(-1) ?? "object";
  if (s.enum) return s.enum.map(String).join(" | ");
  if (s.anyOf) return s.anyOf.map(typeOf).join(" | ");
  if (s.type === "array") return `${s.items ? typeOf(s.items) : "any"}[]`;
  if (Array.isArray(s.type)) return s.type.join(" | ");
  return s.type ?? "any";
}

/** Named schemas of the document (components.schemas), which response schemas refer to. */
type Defs = Record<string, Schema>;

/** The schema a $ref names (or the schema itself); array items stand for the array. */
function expand(schema: Schema, defs: Defs): Schema {
  const named = schema.$ref ? (defs[schema.$ref.split("/").at(-1) ?? ""] ?? schema) : schema;
  return named.type === "array" && named.items ? expand(named.items, defs) : named;
}

function Fields({ schema, defs = {}, depth = 0 }: { schema: Schema; defs?: Defs; depth?: number }) {
  const props = Object.entries(expand(schema, defs).properties ?? {});
  if (props.length === 0 || depth > 3) return null;
  return (
    <ul className={depth ? "ml-4 border-l border-slate-200 pl-3" : ""}>
      {props.map(([name, field]) => (
        <li key={name} className="py-1">
          <code className="font-mono text-sm font-semibold text-slate-900">{name}</code>{" "}
          <span className="font-mono text-xs text-slate-500">{typeOf(field)}</span>
          {schema.required?.includes(name) && (
            <span className="ml-1 text-xs font-medium text-red-700">required</span>
          )}
          {field.description && <p className="text-sm text-slate-600">{field.description}</p>}
          <Fields schema={field} defs={defs} depth={depth + 1} />
        </li>
      ))}
    </ul>
  );
}

function OperationCard({ op, defs }: { op: OperationView; defs: Defs }) {
  const params = op.parameters?.filter((p) => p.in !== "header") ?? [];
  const body = op.requestBody?.content["application/json"]?.schema;
  // The catch-all of unknown paths has no success: its 404 is what it answers.
  const [status, success]: [string, OperationView["responses"][string]] = Object.entries(op.responses).find(([code]) => code.startsWith("2")) ??
    Object.entries(op.responses)[0] ?? ["200", { description: "" }];
  const errors = Object.keys(op.responses).filter((code) => !code.startsWith("2") && code !== status);
  return (
    <article id={op.operationId} className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <header className="flex flex-wrap items-center gap-3">
        <span
          className={`rounded px-2 py-0.5 font-mono text-xs font-bold uppercase ${METHOD_COLORS[op.method] ?? ""}`}
        >
          {op.method}
        </span>
        <code className="font-mono text-sm text-slate-900">{op.path}</code>
        <span className="text-sm text-slate-700">{op.summary}</span>
      </header>
      <p className="mt-2 text-xs text-slate-500">
        Permission: <code className="font-mono">{op["x-permission"]}</code> · operationId{" "}
        <code className="font-mono">{op.operationId}</code>
      </p>
      {op.description && <p className="mt-1 text-sm text-slate-600">{op.description}</p>}
      {params.length > 0 && (
        <section className="mt-3">
          <h4 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Parameters</h4>
          <ul>
            {params.map((p) => (
              <li key={`${p.in}:${p.name}`} className="py-1 text-sm">
                <code className="font-mono font-semibold">{p.name}</code>{" "}
                <span className="font-mono text-xs text-slate-500">
                  {p.in} · {p.schema ? typeOf(p.schema) : "string"}
                </span>
                {p.required && <span className="ml-1 text-xs font-medium text-red-700">required</span>}
                {p.description && <span className="text-slate-600"> — {p.description}</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
      {body && (
        <section className="mt-3">
          <h4 className="text-xs font-semibold uppercase tracking-wide text-slate-500">
            Request body (JSON)
          </h4>
          <Fields schema={body} />
        </section>
      )}
      <section className="mt-3 text-sm">
        <h4 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Response</h4>
        <p className="text-slate-700">
          <span className="font-mono font-semibold">{status}</span> {success.description}
        </p>
        {success.content?.["application/json"] && <Fields schema={success.content["application/json"].schema} defs={defs} />}
        {errors.length > 0 && (
          <p className="mt-1 text-xs text-slate-500">
            Errors: {errors.join(", ")} with {"{message, status, errors: [{status, title, detail, source?}]}"}.
          </p>
        )}
      </section>
    </article>
  );
}

export default function ApiReferencePage() {
  const doc = openApiDocument() as unknown as {
    info: { title: string; version: string; description?: string };
    paths: Record<string, Record<string, OperationView>>;
    components?: { schemas?: Defs };
  };
  const defs = doc.components?.schemas ?? {};
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ ...op, method, path })),
  );
  const groups = TAGS.map((tag) => ({
    ...tag,
    operations: operations.filter((op) => op.tags[0] === tag.name),
  })).filter((g) => g.operations.length > 0);
  return (
    <div className="min-h-screen bg-slate-50">
      <div className="mx-auto flex max-w-6xl gap-8 px-6 py-8">
        <nav className="sticky top-8 hidden h-fit w-56 shrink-0 text-sm lg:block" aria-label="API sections">
          <Link href="/dashboard" className="text-slate-500 hover:text-slate-900">
            ← Console
          </Link>
          <ul className="mt-4 space-y-1">
            {groups.map((g) => (
              <li key={g.name}>
                <a
                  href={`#${g.name.toLowerCase().replace(/\W+/g, "-")}`}
                  className="text-slate-700 hover:text-slate-950"
                >
                  {g.name} <span className="text-slate-400">({g.operations.length})</span>
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main className="min-w-0 flex-1">
          <h1 className="text-2xl font-semibold text-slate-900">
            {doc.info.title} <span className="text-base font-normal text-slate-500">v{doc.info.version}</span>
          </h1>
          <p className="mt-2 max-w-3xl text-sm text-slate-600">{doc.info.description}</p>
          <p className="mt-2 text-sm">
            Machine-readable:{" "}
            <a className="font-mono text-indigo-700 underline" href="/api/v1/openapi.json">
              /api/v1/openapi.json
            </a>{" "}
            (OpenAPI 3.1)
          </p>
          {groups.map((g) => (
            <section key={g.name} id={g.name.toLowerCase().replace(/\W+/g, "-")} className="mt-10">
              <h2 className="text-lg font-semibold text-slate-900">{g.name}</h2>
              <p className="mb-3 text-sm text-slate-500">{g.description}</p>
              <div className="space-y-3">
                {g.operations.map((op) => (
                  <OperationCard key={`${op.method} ${op.path}`} op={op} defs={defs} />
                ))}
              </div>
            </section>
          ))}
        </main>
      </div>
    </div>
  );
}
