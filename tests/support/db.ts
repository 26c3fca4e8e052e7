// A fresh database per test file, cloned from the run's migrated template.
// Call `useTestDatabase()` at the top of a test file that touches the application database.
import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { closeDatabase } from "@/lib/db/client";

export function databaseUrl(name: string): string {
  const u = new URL(inject("adminDatabaseUrl"));
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: inject("adminDatabaseUrl") });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty scratch database (not migrated) and returns its URL; dropped after the file. */
export async function createScratchDatabase(prefix = "ds_scratch"): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  return {
    url: databaseUrl(name),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** Clones the migrated template into a new database and points DATABASE_URL at it for this file. */
export async function cloneTemplateDatabase(): Promise<{ name: string; url: string }> {
  const name = `ds_t_${randomBytes(5).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${inject("templateDatabase")}`));
  return { name, url: databaseUrl(name) };
}

export function useTestDatabase(): { url: () => string } {
  let current = { name: "", url: "" };
  beforeAll(async () => {
    current = await cloneTemplateDatabase();
    process.env.DATABASE_URL = current.url;
  });
  afterAll(async () => {
    await closeDatabase();
    if (!current.name) return;
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${current.name} WITH (FORCE)`));
  });
  return { url: () => current.url };
}

/**
 * A scratch database (createScratchDatabase) and a client connected to it for this test file, after
 * `setup` (SQL) has run in it; both go away after the file. Call at the top of the file.
 */
export function useScratchClient(prefix: string, setup = ""): () => Client {
  let scratch: { url: string; drop(): Promise<void> } | undefined;
  let client: Client | undefined;
  beforeAll(async () => {
    scratch = await createScratchDatabase(prefix);
    client = new Client({ connectionString: scratch.url });
    await client.connect();
    if (setup) await client.query(setup);
  });
  afterAll(async () => {
    await client?.end();
    await scratch?.drop();
  });
  return () => {
    if (!client) throw new Error("useScratchClient: the client exists once beforeAll has run");
    return client;
  };
}
