// The demo (`npm run seed:demo`, or `DEMO=1 npm start`): a `customers` table of 10,000 rows in a
// demo database on the same PostgreSQL server as the app, an empty `customers_copy` destination
// table, a PostgreSQL source and destination, a model, the destination's catalog and a manual sync.
// Idempotent: an existing demo is left as it is.
import { createHash, randomBytes } from "node:crypto";
import { Client } from "pg";
import { databaseUrl } from "@/lib/settings/process-database";
import { loadDestination } from "@/lib/connectors/registry";
import { encryptJson } from "@/lib/crypto/encryption";
import { prisma } from "./client";

const DEMO_DB = "datasync_demo";
/** The demo's connectors log in as this role, not as the app's superuser (who could read server files). */
const DEMO_ROLE = "datasync_demo";
const DEMO_ROWS = 10_000;

function withDatabase(url: string, name: string): URL {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u;
}

async function ensureDemoData(appUrl: string): Promise<{ url: URL; password: string }> {
  const admin = new Client({ connectionString: withDatabase(appUrl, "postgres").toString() });
  await admin.connect();
  const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [DEMO_DB]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DEMO_DB}`);
  // A fresh password each time the demo is created: only the demo's connectors know it.
  const password = randomBytes(18).toString("base64url");
  const role = await admin.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [DEMO_ROLE]);
  const verb = role.rowCount === 0 ? "CREATE" : "ALTER";
  await admin.query(`${verb} ROLE ${DEMO_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '${password}'`);
  await admin.end();

  const url = withDatabase(appUrl, DEMO_DB);
  const demo = new Client({ connectionString: url.toString() });
  await demo.connect();
  try {
    await demo.query(`
      CREATE TABLE IF NOT EXISTS customers (
        id integer PRIMARY KEY, state text, last_name text, first_name text,
        phone_number bigint, email_address text, updated_at timestamptz NOT NULL DEFAULT now());
      CREATE TABLE IF NOT EXISTS customers_copy (
        id integer PRIMARY KEY, state text, last_name text, first_name text,
        phone_number bigint, email_address text, updated_at timestamptz);
      GRANT USAGE ON SCHEMA public TO ${DEMO_ROLE};
      GRANT SELECT ON customers TO ${DEMO_ROLE};
      GRANT SELECT, INSERT, UPDATE, DELETE ON customers_copy TO ${DEMO_ROLE};`);
    // generate_series keeps the 10k rows one statement, without shipping them from Node.
    await demo.query(
      `INSERT INTO customers (id, state, last_name, first_name, phone_number, email_address, updated_at)
       SELECT i,
              (ARRAY['CA','NY','TX','WA','FL','IL','MA','CO'])[1 + i % 8],
              (ARRAY['Smith','Garcia','Chen','Okafor','Müller','Rossi','Kowalski','Tanaka'])[1 + (i / 8) % 8],
              (ARRAY['Ada','Grace','Linus','Margaret','Alan','Barbara','Ken','Radia'])[1 + (i / 64) % 8],
              5550000000 + i,
              'customer' || i || '@example.com',
              now() - (i || ' minutes')::interval
       FROM generate_series(1, $1::int) AS i
       ON CONFLICT (id) DO NOTHING`,
      [DEMO_ROWS],
    );
  } finally {
    await demo.end();
  }
  return { url, password };
}

export async function seedDemo(options: { log?: (line: string) => void } = {}): Promise<{ syncId: number }> {
  const log = options.log ?? console.log;
  const appUrl = databaseUrl();
  if (!appUrl) throw new Error("No application database: open it first (lib/db/runtime.ts) or set DATABASE_URL.");
  const db = prisma();
  const workspace = await db.workspace.findFirst({ orderBy: { id: "asc" } });
  if (!workspace) throw new Error("Run the seed first: no workspace exists yet.");

  const existing = await db.sync.findFirst({ where: { workspaceId: workspace.id, name: "Demo: customers" } });
  if (existing) {
    log(`Demo already present (sync ${existing.id}).`);
    return { syncId: existing.id };
  }

  const { url, password } = await ensureDemoData(appUrl);
  const config = {
    host: url.hostname,
    port: Number(url.port || 5432),
    database: DEMO_DB,
    schema: "public",
    credentials: {
      auth_type: "username/password",
      username: DEMO_ROLE,
      password,
    },
    ssl_mode: "disable",
  };
  const discovered = await (await loadDestination("Postgresql")).discover(config);
  const streams = discovered.streams.filter((s) => s.name === "customers_copy");
  const catalog = { ...discovered, streams };
  const catalogJson = JSON.stringify(catalog);

  const sync = await db.$transaction(async (tx) => {
    const source = await tx.connector.create({
      data: {
        workspaceId: workspace.id,
        connectorType: "source",
        connectorName: "Postgresql",
        category: "data",
        name: "Demo PostgreSQL",
        description: "The demo database's customers table.",
        configurationEncrypted: encryptJson(config),
      },
    });
    const destination = await tx.connector.create({
      data: {
        workspaceId: workspace.id,
        connectorType: "destination",
        connectorName: "Postgresql",
        category: "data",
        name: "Demo warehouse",
        description: "customers_copy in the demo database.",
        configurationEncrypted: encryptJson(config),
      },
    });
    await tx.catalog.create({
      data: {
        workspaceId: workspace.id,
        connectorId: destination.id,
        catalog: catalog as object,
        catalogHash: createHash("sha256").update(catalogJson).digest("hex"),
      },
    });
    const model = await tx.model.create({
      data: {
        workspaceId: workspace.id,
        connectorId: source.id,
        name: "Customers",
        description: "Every customer of the demo.",
        query: "SELECT id, state, last_name, first_name, phone_number, email_address, updated_at FROM customers",
        queryType: "raw_sql",
        primaryKey: "id",
      },
    });
    const fields = ["id", "state", "last_name", "first_name", "phone_number", "email_address", "updated_at"];
    return tx.sync.create({
      data: {
        workspaceId: workspace.id,
        sourceId: source.id,
        destinationId: destination.id,
        modelId: model.id,
        name: "Demo: customers",
        description: "Copies customers into customers_copy. Press Run now.",
        configuration: fields.map((f) => ({ from: f, to: f, mapping_type: "standard" })),
        scheduleType: "manual",
        syncMode: "incremental",
        streamName: "customers_copy",
      },
    });
  });
  log(`Demo created: ${DEMO_ROWS} customers, sync ${sync.id} ("Demo: customers").`);
  return { syncId: sync.id };
}
