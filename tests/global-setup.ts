// Vitest global setup: one migrated template database per test run; every test file clones it
// (CREATE DATABASE … TEMPLATE), so files are isolated and start in milliseconds.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { Client } from "pg";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../lib/db/embedded";
import { migrateDatabase } from "../lib/db/migrate";
import { freePort } from "./support/free-port";

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
  }
}

let embedded: EmbeddedDatabase | undefined;
let adminUrl = "";
let template = "";

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function setup(project: TestProject): Promise<void> {
  if (process.env.TEST_DATABASE_URL) {
    adminUrl = process.env.TEST_DATABASE_URL;
  } else {
    embedded = await startEmbeddedPostgres({
      dataDir: path.resolve(process.env.TEST_DATA_DIR ?? ".data/test"),
      // A port of the system's choosing unless one is given: another test run may hold any fixed one.
      port: process.env.TEST_EMBEDDED_PG_PORT ? Number(process.env.TEST_EMBEDDED_PG_PORT) : await freePort(),
    });
    adminUrl = embedded.url;
  }
  template = `ds_tpl_${randomBytes(4).toString("hex")}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  await migrateDatabase(withDatabase(adminUrl, template));
  project.provide("adminDatabaseUrl", adminUrl);
  project.provide("templateDatabase", template);
}

export async function teardown(): Promise<void> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
  await embedded?.stop();
}
