// The README's two tables of environment variables, written from lib/settings/env.ts (the product's)
// and from TEST_VARIABLES below (read only by tests, e2e specs and benchmarks, so not in the runtime
// schema). `npm run docs:env` rewrites them; lib/settings/env-docs.test.ts fails when they differ.
import { ENV_NAMES, envSchema, variableMeta, type EnvName } from "./env";

export interface DocumentedVariable {
  name: string;
  /** As the README shows it; "" for none. */
  default: string;
  meaning: string;
}

export const TEST_VARIABLES: DocumentedVariable[] = [
  {
    name: "TEST_DATABASE_URL",
    default: "embedded",
    meaning:
      "PostgreSQL server where each vitest file gets its own database, and where the Playwright server creates its own; unset = an embedded PostgreSQL",
  },
  {
    name: "TEST_DATA_DIR",
    default: "`.data/test`",
    meaning: "files of vitest's embedded PostgreSQL (without `TEST_DATABASE_URL`)",
  },
  {
    name: "TEST_EMBEDDED_PG_PORT",
    default: "a free port",
    meaning: "port of vitest's embedded PostgreSQL (the system picks a free one when unset)",
  },
  {
    name: "MARIADB_URL",
    default: "",
    meaning:
      "MariaDB server of the MariaDB connector tests, e.g. `mysql://root@127.0.0.1:3306/test`; unset = those tests report themselves skipped",
  },
  {
    name: "REDIS_URL",
    default: "`redis://127.0.0.1:6379`",
    meaning:
      "Redis server of the Redis destination tests and the broker e2e spec (they write keys under a unique prefix and delete them)",
  },
  {
    name: "AMQP_URL",
    default: "`amqp://guest:guest@127.0.0.1:5672`",
    meaning:
      "RabbitMQ broker of the RabbitMQ destination tests and the broker e2e spec (they declare and delete their own exchange and queue)",
  },
  {
    name: "NATS_URL",
    default: "`nats://127.0.0.1:4222`",
    meaning:
      "NATS server with JetStream of the NATS destination tests and the broker e2e spec (they add and delete their own stream)",
  },
  {
    name: "MQTT_URL",
    default: "`mqtt://127.0.0.1:1883`",
    meaning:
      "MQTT broker (Mosquitto) of the MQTT destination tests and the broker e2e spec (they publish under a unique topic prefix)",
  },
  {
    name: "PG_TEST_HOST",
    default: "`127.0.0.1`",
    meaning: "PostgreSQL server the PostgreSQL connector tests read and write",
  },
  { name: "PG_TEST_PORT", default: "`5432`", meaning: "its port" },
  {
    name: "E2E_PORT",
    default: "a free port",
    meaning:
      "port of the server the Playwright tests start; unset, the system picks a free one for each run (set it to reuse a running test server between runs). Second servers always get free ports",
  },
  {
    name: "E2E_DATA_DIR",
    default: "`.data/e2e`",
    meaning: "files of the Playwright server's embedded PostgreSQL (without `TEST_DATABASE_URL`)",
  },
  {
    name: "E2E_PG_HOST",
    default: "`127.0.0.1`",
    meaning: "PostgreSQL with the `test` database the e2e specs' connectors read and write",
  },
  { name: "E2E_PG_PORT", default: "`5432`", meaning: "its port" },
  { name: "E2E_PG_USER", default: "`postgres`", meaning: "its user" },
  { name: "E2E_PG_PASSWORD", default: "", meaning: "that user's password" },
  { name: "E2E_PG_DATABASE", default: "`test`", meaning: "the database" },
  {
    name: "CONSOLE_BASE_URL",
    default: "",
    meaning: "console specs: the console under test, when not the Playwright server",
  },
  { name: "CHROMIUM_PATH", default: "`/usr/bin/chromium`", meaning: "the Chromium Playwright drives" },
  {
    name: "CI",
    default: "",
    meaning: "set: Playwright starts a fresh server instead of reusing one and writes an HTML report",
  },
  {
    name: "OPS_TRIALS",
    default: "`10`",
    meaning:
      "`tests/ops/worker-kill.test.ts`: trials (a sync whose worker is killed mid-run, then finished and re-run)",
  },
  { name: "OPS_LANES", default: "`2`", meaning: "`tests/ops/worker-kill.test.ts`: trials run side by side" },
  {
    name: "OPS_HTTP_ROWS",
    default: "`3000`",
    meaning: "`tests/ops/worker-kill-http.test.ts`: rows of the webhook sync whose worker is killed mid-run",
  },
  {
    name: "OPS_SEED",
    default: "the clock",
    meaning: "`tests/ops/worker-kill.test.ts`: seed of the random kill times, to replay a failure",
  },
  {
    name: "OPS_LIVE_KILLS",
    default: "`4`",
    meaning: "`tests/ops/live-worker-kill.test.ts`: how many times the worker streaming a live sync is killed",
  },
  {
    name: "CLICKHOUSE_CLIENT_BIN",
    default: "Debian's `clickhouse-client`",
    meaning: "`npm run bench -- --only clickhouse`: the client of the baseline (`clickhouse-client … FORMAT TabSeparated`)",
  },
  {
    name: "PG_TEST_URL",
    default: "`postgres://postgres@127.0.0.1:5432/test`",
    meaning: "PostgreSQL database behind the BigQuery and Athena emulators (they run the queries there)",
  },
  {
    name: "CLICKHOUSE_SERVER_BIN",
    default: "Debian's `clickhouse-server`",
    meaning: "ClickHouse server binary the ClickHouse tests start privately on a loopback port",
  },
  {
    name: "BENCH_DATABASE_URL",
    default: "`TEST_DATABASE_URL`",
    meaning: "`npm run bench`: PostgreSQL server of the benchmarks' databases",
  },
  {
    name: "BENCH_WORKER_NODE_ARGS",
    default: "",
    meaning: "`npm run bench`: node flags for the sync worker, space-separated (e.g. `--log-deopt --logfile=/tmp/v8.log`)",
  },
  {
    name: "BENCH_CHILD_LOG",
    default: "",
    meaning: "`npm run bench`: a file every child process's whole output is appended to (e.g. with `--trace-gc`)",
  },
];

/** Read by the `datasync` CLI (scripts/datasync.ts) on the operator's machine, never by the server. */
export const CLI_VARIABLES: DocumentedVariable[] = [
  {
    name: "DATASYNC_URL",
    default: "",
    meaning: "the server the CLI talks to, e.g. `https://datasync.example.com`",
  },
  {
    name: "DATASYNC_TOKEN",
    default: "",
    meaning: "an API token (`POST /api/v1/api_tokens`) the CLI authenticates with",
  },
  {
    name: "DATASYNC_WORKSPACE_ID",
    default: "the token's",
    meaning: "the workspace to act in (an API token is bound to one already)",
  },
];

function shown(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "boolean") return value ? "`1`" : "`0`";
  return `\`${String(value)}\``;
}

/** The default of a variable as the README shows it: its words for it, else the value when unset. */
function defaultOf(name: EnvName): string {
  const meta = variableMeta(name);
  if (meta.unset !== undefined) return meta.unset;
  const unset = envSchema.shape[name].safeParse(undefined);
  return unset.success ? shown(unset.data) : "";
}

export const RUNTIME_VARIABLES: DocumentedVariable[] = ENV_NAMES.map((name) => ({
  name,
  default: defaultOf(name),
  meaning: variableMeta(name).description,
}));

export function renderTable(variables: DocumentedVariable[]): string {
  const rows = variables.map((v) => `| \`${v.name}\` | ${v.default} | ${v.meaning} |`);
  return ["| variable | default | meaning |", "|---|---|---|", ...rows].join("\n");
}

export const MARKERS = {
  runtime: ["<!-- env:runtime:start (npm run docs:env writes this table) -->", "<!-- env:runtime:end -->"],
  test: ["<!-- env:test:start (npm run docs:env writes this table) -->", "<!-- env:test:end -->"],
  cli: ["<!-- env:cli:start (npm run docs:env writes this table) -->", "<!-- env:cli:end -->"],
} as const;

/** The text between a pair of markers, or undefined when they are missing. */
export function section(text: string, [start, end]: readonly [string, string]): string | undefined {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) return undefined;
  return text.slice(from + start.length, to).trim();
}

/** `text` with the tables between their markers replaced by freshly rendered ones. */
export function withTables(text: string): string {
  let out = text;
  for (const [key, variables] of [
    ["runtime", RUNTIME_VARIABLES],
    ["test", TEST_VARIABLES],
    ["cli", CLI_VARIABLES],
  ] as const) {
    const [start, end] = MARKERS[key];
    const from = out.indexOf(start);
    const to = out.indexOf(end);
    if (from < 0 || to < from) throw new Error(`README.md lacks the markers ${start} … ${end}`);
    out = `${out.slice(0, from + start.length)}\n${renderTable(variables)}\n${out.slice(to)}`;
  }
  return out;
}
