// Where the test server keeps its own application database, found the way an attacker who leaked
// its credentials would use them: host, port, database, user and password.
import { readFileSync } from "node:fs";
import path from "node:path";
import { Client } from "pg";

export interface AppDatabase {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
}

/**
 * The e2e server's database (scripts/e2e-server.ts): the embedded one under .data/e2e, or, with
 * TEST_DATABASE_URL, the ds_e2e_* database holding `workspaceName` (other servers may run beside).
 */
export async function appDatabase(workspaceName: string): Promise<AppDatabase> {
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) {
    const state = JSON.parse(readFileSync(path.resolve(".data/e2e/embedded-postgres.json"), "utf8")) as { password: string };
    // The port the server picked (scripts/e2e-server.ts writes it beside its data).
    const port = process.env.EMBEDDED_PG_PORT ?? readFileSync(path.resolve(".data/e2e/embedded-port"), "utf8").trim();
    return { host: "127.0.0.1", port: Number(port), database: "datasync", user: "postgres", password: state.password };
  }
  const url = new URL(admin);
  const base = { host: url.hostname, port: Number(url.port || 5432), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  const server = new Client({ ...base, database: url.pathname.slice(1) || "postgres", password: base.password || undefined });
  await server.connect();
  const { rows } = await server.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'ds_e2e_%'");
  await server.end();
  for (const { datname } of rows) {
    const client = new Client({ ...base, database: datname, password: base.password || undefined });
    try {
      await client.connect();
      const found = await client.query("SELECT 1 FROM workspaces WHERE name = $1", [workspaceName]);
      if (found.rowCount) return { ...base, database: datname };
    } catch {
      // a database being created or dropped by another server
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  throw new Error(`No ds_e2e_* database holds workspace "${workspaceName}".`);
}
