// Attacks a Member of one workspace tried through connectors, over real HTTP against the running
// product (security issue items 1, 2, 7, 8 and 14): reading the server's environment through
// ENV['X'] placeholders, using the application database as a source, running DDL as a model,
// moving an Admin's stored secret to the attacker's server, and reaching private addresses.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { ADMIN, Api, expectError, fieldErrors, loginAs } from "../support/api";
import { appDatabase } from "../support/app-database";
import { dataWorkspace, MASK, pgConfiguration, sql, unique, type DataWorkspace } from "../support/data";
import { acceptInvitation } from "../support/mailbox";

test.describe.configure({ timeout: 120_000 });

let ws: DataWorkspace;
let member: Api;

test.beforeAll(async ({ playwright }) => {
  ws = await dataWorkspace("sec-connectors");
  const roles = (await (await ws.admin.get("/enterprise/api/v1/roles")).json()).data as { id: string; attributes: { role_name: string } }[];
  const role = roles.find((r) => r.attributes.role_name === "Member");
  expect(role).toBeTruthy();
  const email = `${unique("member")}@example.com`;
  const password = "member-password-8c1f";
  const res = await ws.admin.post(`/api/v1/workspaces/${ws.workspaceId}/members`, { member: { email, name: "Member", role_id: Number(role!.id) } });
  expect(res.status(), await res.text()).toBe(201);
  const request = await playwright.request.newContext({ baseURL: test.info().project.use.baseURL });
  await acceptInvitation(request, email, password);
  member = new Api({ token: await loginAs(request, email, password), workspaceId: ws.workspaceId });
});
test.afterAll(async () => ws?.dispose());

/** A local HTTP server that records what reaches it (the attacker's, or a legitimate receiver). */
async function receiver(): Promise<{ url: string; seen: { url?: string; headers: IncomingHttpHeaders }[]; close(): Promise<void> }> {
  const seen: { url?: string; headers: IncomingHttpHeaders }[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ url: req.url, headers: req.headers });
    res.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function checkConnection(api: Api, name: string, connection_spec: Record<string, unknown>): Promise<{ result: string; details: string; raw: string }> {
  // `Http` names a source and a destination: without a type the source answers, so say which.
  const type = name === "Http" ? "destination" : undefined;
  const res = await api.post("/api/v1/connector_definitions/check_connection", { type, name, connection_spec });
  const raw = await res.text();
  expect(res.status(), raw).toBe(200);
  return { ...(JSON.parse(raw) as { result: string; details: string }), raw };
}

test("1. ENV['X'] placeholders resolve nothing the operator did not share: no server secret in any answer or request", async () => {
  const hook = await receiver();
  try {
    for (const name of ["DATABASE_URL", "JWT_SECRET", "ENCRYPTION_KEY", "ADMIN_PASSWORD", "HOME", "PATH"]) {
      const pg = await checkConnection(member, "Postgresql", pgConfiguration({ host: `ENV['${name}']` }));
      expect(pg.result, name).toBe("failure");
      expect(pg.details, name).toContain(`ENV['${name}'], which this server does not share with connectors`);
      expect(pg.raw).not.toContain("postgresql://");
      expect(pg.raw).not.toContain(ADMIN.password);
      const http = await checkConnection(member, "Http", { destination_url: hook.url, headers: { Authorization: `ENV['${name}']` } });
      expect(http.result, name).toBe("failure");
    }
    expect(hook.seen).toEqual([]);
    // Stored placeholders are refused on the field, so no run can resolve them later either.
    const created = await expectError(
      await member.post("/api/v1/connectors", {
        connector: { name: unique("env"), connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration({ host: "ENV['DATABASE_URL']" }) },
      }),
      422,
      "validation_failed",
    );
    expect(fieldErrors(created)).toEqual([{ path: "connector.configuration.host", message: expect.stringContaining("CONNECTOR_ENV_ALLOWLIST") }]);
  } finally {
    await hook.close();
  }
});

test("2. the application's own database is no source or destination, even with its real credentials", async () => {
  const name = (await (await ws.admin.get(`/api/v1/workspaces/${ws.workspaceId}`)).json()).data.attributes.name as string;
  const app = await appDatabase(name);
  for (const host of [app.host, "localhost"]) {
    const configuration = {
      host,
      port: app.port,
      database: app.database,
      schema: "public",
      credentials: { auth_type: "username/password", username: app.user, password: app.password || "unused" },
    };
    for (const type of ["source", "destination"]) {
      const res = await member.post("/api/v1/connectors", { connector: { name: unique("appdb"), connector_type: type, connector_name: "Postgresql", configuration } });
      expect(res.status(), await res.text()).toBe(201);
      const id = (await res.json()).data.id as string;
      const check = await (await member.post(`/api/v1/connectors/${id}/check`)).json();
      expect(check).toMatchObject({ result: "failure", details: expect.stringContaining("own application database") });
      if (type === "source") {
        const preview = await member.post(`/api/v1/connectors/${id}/query_source`, { query: "SELECT email, password_digest FROM users" });
        const text = await preview.text();
        expect(preview.status(), text).toBeGreaterThanOrEqual(400);
        expect(preview.status(), text).toBeLessThan(500);
        expect(text).toContain("own application database");
        expect(text).not.toContain(ADMIN.email);
      }
    }
  }
});

test("7. a model is one SELECT: DDL, DML and a second statement are refused on create, update and preview", async () => {
  await sql("CREATE TABLE IF NOT EXISTS sec_victim (id int PRIMARY KEY)");
  const source = await ws.admin.post("/api/v1/connectors", {
    connector: { name: unique("src"), connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  const sourceId = Number((await source.json()).data.id);
  const attacks = ["DROP TABLE sec_victim", "SELECT 1 AS id; DROP TABLE sec_victim", "DELETE FROM sec_victim", "CREATE ROLE evil"];
  for (const query of attacks) {
    const created = await expectError(
      await member.post("/api/v1/models", { model: { name: unique("m"), query, query_type: "raw_sql", primary_key: "id", connector_id: sourceId } }),
      422,
      "validation_failed",
    );
    expect(fieldErrors(created), query).toEqual([expect.objectContaining({ path: "model.query" })]);
    await expectError(await member.post(`/api/v1/connectors/${sourceId}/query_source`, { query }), 422, "validation_failed");
  }
  const model = await member.post("/api/v1/models", {
    model: { name: unique("m"), query: "SELECT id FROM sec_victim", query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  expect(model.status(), await model.text()).toBe(201);
  const modelId = (await model.json()).data.id as string;
  await expectError(await member.put(`/api/v1/models/${modelId}`, { model: { query: "DROP TABLE sec_victim" } }), 422, "validation_failed");
  // The table survived every attempt.
  const preview = await member.post(`/api/v1/connectors/${sourceId}/query_source`, { query: "SELECT count(*) AS n FROM sec_victim" });
  expect(preview.status(), await preview.text()).toBe(200);
});

test("19. only those who may write models run SQL on a source; server-file functions are refused even on a superuser's connector, whose check warns", async () => {
  // pgConfiguration() signs in as the test server's postgres: a superuser.
  const source = await ws.admin.post("/api/v1/connectors", {
    connector: { name: unique("super"), connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect(source.status(), await source.text()).toBe(201);
  const sourceId = Number((await source.json()).data.id);
  const viewer = await expectError(await ws.viewer.post(`/api/v1/connectors/${sourceId}/query_source`, { query: "SELECT pg_read_file('/etc/passwd')" }), 403, "forbidden");
  expect(viewer.message).toBe("Your role (Viewer) may not run queries on sources.");

  const attacks: [string, string][] = [
    ["SELECT pg_read_file('/etc/passwd') AS f", "pg_read_file"],
    ['SELECT * FROM pg_catalog."pg_read_file"(\'/etc/passwd\') AS f', "pg_read_file"],
    ["SELECT lo_import('/etc/passwd') AS oid", "lo_import"],
    // PostgreSQL's comments nest: the quote is inside the comment, not the start of a string.
    ["SELECT /* /* */ ' */ pg_read_file('/etc/passwd') AS f", "pg_read_file"],
    ["SELECT convert_from(lo_get(lo_import('/etc/passwd')), 'UTF8') AS f", "lo_get"],
    ["SELECT name FROM pg_ls_dir('/etc') AS name", "pg_ls_dir"],
    ["SELECT query_to_xml('select pg_read_file(''/etc/passwd'')', true, false, '') AS x", "query_to_xml"],
  ];
  for (const [query, fn] of attacks) {
    const preview = await expectError(await member.post(`/api/v1/connectors/${sourceId}/query_source`, { query }), 422, "validation_failed");
    expect(preview.message, query).toContain(`The query must not call ${fn}(): models read the database's rows, not the server's files`);
    expect(JSON.stringify(preview)).not.toContain("root:x:0:0");
    const model = await expectError(
      await member.post("/api/v1/models", { model: { name: unique("m"), query, query_type: "raw_sql", primary_key: "f", connector_id: sourceId } }),
      422,
      "validation_failed",
    );
    expect(fieldErrors(model), query).toEqual([expect.objectContaining({ path: "model.query", message: expect.stringContaining(`must not call ${fn}()`) })]);
  }
  // A plain query still previews for the Member.
  expect((await member.post(`/api/v1/connectors/${sourceId}/query_source`, { query: "SELECT 1 AS one" })).status()).toBe(200);

  const check = await member.post(`/api/v1/connectors/${sourceId}/check`);
  expect(check.status(), await check.text()).toBe(200);
  const answer = (await check.json()) as { result: string; details: string };
  expect(answer.result).toBe("success");
  expect(answer.details).toContain(`Warning: "postgres" is a superuser, so anyone who may write this workspace's models can reach the database server's files through it`);
});

test("8. a stored secret is never sent to a target the Member chose: URL, host or port changes need it re-entered", async () => {
  const legit = await receiver();
  const attacker = await receiver();
  try {
    const created = await ws.admin.post("/api/v1/connectors", {
      connector: {
        name: unique("hook"),
        connector_type: "destination",
        connector_name: "Http",
        configuration: { destination_url: legit.url, headers: { Authorization: "Bearer admin-only-7d2e" } },
      },
    });
    expect(created.status(), await created.text()).toBe(201);
    const id = (await created.json()).data.id as string;
    const shown = (await (await member.get(`/api/v1/connectors/${id}`)).json()).data.attributes.configuration;
    expect(shown.headers.Authorization).toBe(MASK);
    const moved = { ...shown, destination_url: attacker.url };
    const tried = await expectError(await member.post(`/api/v1/connectors/${id}/check`, { configuration: moved }), 422, "validation_failed");
    expect(fieldErrors(tried)).toEqual([{ path: "configuration.headers", message: expect.stringContaining("destination_url changed") }]);
    const saved = await expectError(await member.put(`/api/v1/connectors/${id}`, { connector: { configuration: moved } }), 422, "validation_failed");
    expect(fieldErrors(saved)).toEqual([{ path: "connector.configuration.headers", message: expect.stringContaining("enter it again") }]);
    expect(attacker.seen).toEqual([]);
    // The stored secret still goes where the Admin sent it; a Member's own secret may go anywhere.
    expect((await (await member.post(`/api/v1/connectors/${id}/check`)).json()).result).toBe("success");
    expect(legit.seen.at(-1)?.headers.authorization).toBe("Bearer admin-only-7d2e");
    const own = await member.put(`/api/v1/connectors/${id}`, { connector: { configuration: { ...moved, headers: { Authorization: "mine" } } } });
    expect(own.status(), await own.text()).toBe(200);

    // A database password: another host or port with the mask is refused the same way.
    const pgCreated = await ws.admin.post("/api/v1/connectors", {
      connector: { name: unique("pg"), connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() },
    });
    const pgId = (await pgCreated.json()).data.id as string;
    const pgShown = (await (await member.get(`/api/v1/connectors/${pgId}`)).json()).data.attributes.configuration;
    for (const change of [{ host: "localhost" }, { port: 6543 }, { database: "postgres" }]) {
      const refused = await expectError(await member.post(`/api/v1/connectors/${pgId}/check`, { configuration: { ...pgShown, ...change } }), 422, "validation_failed");
      expect(fieldErrors(refused), JSON.stringify(change)).toEqual([{ path: "configuration.credentials.password", message: expect.stringContaining("enter it again") }]);
    }
  } finally {
    await legit.close();
    await attacker.close();
  }
});

test("14. private addresses the operator did not allow are refused (the test server allows 127.0.0.1 and ::1 only)", async () => {
  for (const url of ["http://10.1.2.3/hook", "http://192.168.0.10/hook", "http://127.0.0.2:9/hook", "http://[fe80::1]/hook"]) {
    const answer = await checkConnection(member, "Http", { destination_url: url });
    expect(answer.result, url).toBe("failure");
    expect(answer.details, url).toMatch(/private, loopback or link-local.*OUTBOUND_ALLOW_PRIVATE/);
  }
  const pg = await checkConnection(member, "Postgresql", pgConfiguration({ host: "10.1.2.3", connect_timeout: 2 }));
  expect(pg.details).toMatch(/OUTBOUND_ALLOW_PRIVATE/);
});
