// `npx datasync config export|plan|apply` (bin/datasync.mjs runs this with tsx): configuration as
// code from the command line (docs/config-as-code.md). A client of the public API like any other:
// every call goes through the typed client generated from the OpenAPI document, with the API token
// in DATASYNC_TOKEN against the server at DATASYNC_URL.
//
// Secrets: the file holds ${env:NAME} references; this program resolves them from ITS environment,
// only for names listed with --allow-env or starting with DATASYNC_SECRET_ (each bound to the field
// export made it for and to that connector's target: host, port, database, URL), and sends the
// values in the request's `secrets`. The server never resolves a reference from its own environment.
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { paths } from "../lib/api-client/generated/openapi";
import { createPublicApiClient, errorLines, type JsonBody, type PublicApiClient } from "../lib/api-client/public-client";
import { clientSecrets, describePlace, documentRefs, type MisplacedRef, SECRET_ENV_PREFIX, type TargetsLookup } from "../lib/config-as-code/secret-refs";
import { ConfigSyntaxError, parseConfigYaml } from "../lib/config-as-code/yaml";

const USAGE = `Usage: datasync config <command> [options]

  config export [FILE]      write the workspace's configuration as YAML (stdout without FILE)
        --kinds LIST        only these kinds (connectors,models,syncs,alert_channels,alert_rules)
  config plan FILE          show what applying FILE would change; changes nothing
  config apply FILE         apply FILE in one transaction (all or nothing)
        --allow-env LIST    environment variables ${"${env:NAME}"} may read anywhere (without it, only
                            ${SECRET_ENV_PREFIX}* names where export put them, same host/URL)
        --json              print the server's answer as JSON

Environment: DATASYNC_URL (the server), DATASYNC_TOKEN (an API token),
             DATASYNC_WORKSPACE_ID (optional; an API token is bound to its workspace).`;

class UsageError extends Error {}

/** The answer of plan and apply, as the OpenAPI document types it. */
type Plan = paths["/api/v1/config/plan"]["post"]["responses"][200]["content"]["application/json"];

function client(): PublicApiClient {
  const baseUrl = process.env.DATASYNC_URL;
  const token = process.env.DATASYNC_TOKEN;
  if (!baseUrl || !token) throw new UsageError("Set DATASYNC_URL (the server) and DATASYNC_TOKEN (an API token) in the environment.");
  const workspaceId = Number(process.env.DATASYNC_WORKSPACE_ID ?? 0) || undefined;
  return createPublicApiClient({ baseUrl, token, workspaceId });
}

class ApiFailure extends Error {
  constructor(readonly lines: string[]) {
    super(lines[0]);
  }
}

const show = (v: unknown) => (typeof v === "string" ? JSON.stringify(v) : String(v));

/** The plan as a person reads it: one line per object, one indented line per field. */
function planText(plan: Plan): string {
  const sign = { create: "+", update: "~", delete: "-" } as Record<string, string>;
  const lines = plan.changes.flatMap((c) => [
    `${sign[c.action] ?? "?"} ${c.action} ${c.kind.replace(/s$/, "")} ${c.slug}${c.id !== null ? ` (id ${c.id})` : ""}`,
    ...c.fields.map((f) =>
      f.secret ? `    ${f.field}: (secret changed)` : "before" in f || "after" in f ? `    ${f.field}: ${"before" in f ? show(f.before) : "(none)"} → ${"after" in f ? show(f.after) : "(none)"}` : `    ${f.field}: changed`,
    ),
  ]);
  const { create = 0, update = 0, delete: del = 0, unchanged = 0 } = plan.summary;
  const head = plan.applied ? "Applied" : "Plan";
  return [...lines, `${head}: ${create} to create, ${update} to update, ${del} to delete, ${unchanged} unchanged.`].join("\n");
}

async function exportCommand(api: PublicApiClient, file: string | undefined, kinds: string | undefined): Promise<void> {
  const { data, error, response } = await api.GET("/api/v1/config/export", { params: { query: kinds ? { kinds } : {} }, parseAs: "text" });
  if (!response.ok || typeof data !== "string") throw new ApiFailure(errorLines(response.status, error));
  if (file) writeFileSync(file, data);
  else process.stdout.write(data);
}

/** The file's document and the secrets its references may read from this process's environment. */
async function readDocument(api: PublicApiClient, file: string, allowEnv: string | undefined): Promise<JsonBody<"/api/v1/config/apply">> {
  let document: unknown;
  try {
    document = parseConfigYaml(readFileSync(file, "utf8"));
  } catch (err) {
    if (err instanceof ConfigSyntaxError) throw new UsageError(`${file}: ${err.message}`);
    throw err;
  }
  if (!document || typeof document !== "object" || Array.isArray(document)) throw new UsageError(`${file}: not a configuration document.`);
  const allowed = new Set((allowEnv ?? "").split(",").map((n) => n.trim()).filter(Boolean));
  // A DATASYNC_SECRET_ name is bound to where the workspace's export puts it, and to where that
  // connector sends its secrets (its definition's target fields): fetch both first.
  const needsExport = documentRefs(document).some((r) => r.name.startsWith(SECRET_ENV_PREFIX) && !allowed.has(r.name));
  const [exported, definitions] = needsExport ? await Promise.all([exportedDocument(api), definitionTargets(api)]) : [{}, undefined];
  const { secrets, refused, misplaced, unset } = clientSecrets(document, process.env, allowed, exported, definitions);
  if (refused.length > 0) {
    throw new UsageError(`${file} refers to ${refused.map((n) => `\${env:${n}}`).join(", ")}; allow ${refused.length > 1 ? "them" : "it"} with --allow-env ${refused.join(",")} (a ${SECRET_ENV_PREFIX} name needs no flag where the workspace's export put it).`);
  }
  if (misplaced.length > 0) {
    // Nothing is sent: the server resolves a name wherever it stands, so one misplaced use is enough.
    const names = [...new Set(misplaced.map((m) => m.name))].join(",");
    throw new UsageError(`${misplaced.map((m) => `${file}: ${misplacedLine(m)}`).join("\n")}\nNothing was sent. If you mean to send it there, name it with --allow-env ${names}, or set the value explicitly.`);
  }
  for (const name of unset) process.stderr.write(`warning: ${name} is not set; an existing connector or alert channel keeps its stored value, a new one is refused.\n`);
  return { ...document, secrets } as JsonBody<"/api/v1/config/apply">;
}

/** Why the CLI refuses to resolve a DATASYNC_SECRET_ reference, as one line. */
function misplacedLine(m: MisplacedRef): string {
  const ref = `\${env:${m.name}}`;
  switch (m.reason) {
    case "moved":
      return `${ref} stands in ${describePlace(m.at)}, but it may be used only in ${describePlace(m.boundTo)}, where the workspace's export puts it.`;
    case "target":
      return `${ref} stands in ${describePlace(m.at)}, whose ${m.changed.join(", ")} ${m.changed.length > 1 ? "differ" : "differs"} from the workspace's export: the secret would go to another server, so it must be given again (--allow-env ${m.name}, or the value set explicitly).`;
    case "unknown":
      return `${ref} stands in ${describePlace(m.at)}, a ${m.at.connectorType} "${m.at.type}" the server has no definition for, so where the secret would go cannot be checked.`;
    case "new":
      return `${ref} stands in ${describePlace(m.at)}, which the workspace's export does not have: a new ${m.at.kind === "connectors" ? "connector" : "alert channel"} points wherever the file says, so the secret must be given explicitly (--allow-env ${m.name}).`;
  }
}

/** Where each connector type sends its secrets, as the server defines it (the definitions the server enforces, without loading connector code here). */
async function definitionTargets(api: PublicApiClient): Promise<TargetsLookup> {
  const { data, error, response } = await api.GET("/api/v1/connector_definitions");
  if (!response.ok || !data) throw new ApiFailure(errorLines(response.status, error));
  const byKey = new Map(
    data.map((d) => [`${d.connector_type}:${d.name.toLowerCase()}`, { secretTargetFields: d.connector_spec.secret_target_fields, connectionSpecification: d.connector_spec.connection_specification }]),
  );
  return (connectorType, connectorName) => byKey.get(`${connectorType}:${connectorName.toLowerCase()}`);
}

/** The workspace's connectors and alert channels as export writes them (with their references). */
async function exportedDocument(api: PublicApiClient): Promise<unknown> {
  const { data, error, response } = await api.GET("/api/v1/config/export", { params: { query: { kinds: "connectors,alert_channels" } }, parseAs: "text" });
  if (!response.ok || typeof data !== "string") throw new ApiFailure(errorLines(response.status, error));
  return parseConfigYaml(data);
}

/** Error lines with each entry path (`syncs.0.stream_name`) followed by the entry's slug, as the file names it. */
function withSlugs(lines: string[], document: Readonly<Record<string, unknown>>): string[] {
  const slugAt = (kind: string, index: number): string | undefined => {
    const list = document[kind];
    const entry: unknown = Array.isArray(list) ? list[index] : undefined;
    const slug = entry && typeof entry === "object" ? (entry as { slug?: unknown }).slug : undefined;
    return typeof slug === "string" ? slug : undefined;
  };
  return lines.map((line) =>
    line.replace(/\b(connectors|models|syncs|alert_channels|alert_rules)\.(\d+)\b/g, (match, kind: string, index: string) => {
      const slug = slugAt(kind, Number(index));
      return slug ? `${match} (${slug})` : match;
    }),
  );
}

async function planOrApply(api: PublicApiClient, command: "plan" | "apply", file: string, allowEnv: string | undefined, json: boolean): Promise<void> {
  const body = await readDocument(api, file, allowEnv);
  const { data, error, response } = command === "plan" ? await api.POST("/api/v1/config/plan", { body }) : await api.POST("/api/v1/config/apply", { body });
  if (!response.ok || !data) throw new ApiFailure(withSlugs(errorLines(response.status, error), body));
  process.stdout.write(`${json ? JSON.stringify(data, null, 2) : planText(data)}\n`);
}

async function main(argv: string[]): Promise<number> {
  try {
    const { positionals, values } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { "allow-env": { type: "string" }, kinds: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    });
    const [group, command, file, ...extra] = positionals;
    if (values.help || group === undefined) {
      process.stdout.write(`${USAGE}\n`);
      return values.help ? 0 : 2;
    }
    if (group !== "config" || extra.length > 0) throw new UsageError(USAGE);
    if (command === "export") await exportCommand(client(), file, values.kinds);
    else if (command === "plan" || command === "apply") {
      if (!file) throw new UsageError(`config ${command} needs a FILE.\n\n${USAGE}`);
      await planOrApply(client(), command, file, values["allow-env"], values.json ?? false);
    } else throw new UsageError(USAGE);
    return 0;
  } catch (err) {
    if (err instanceof ApiFailure) {
      process.stderr.write(`${err.lines.join("\n")}\n`);
      return 1;
    }
    if (err instanceof UsageError || (err instanceof TypeError && "code" in err && String(err.code).startsWith("ERR_PARSE_ARGS"))) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
