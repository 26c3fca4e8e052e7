// Secrets: connector secrets are encrypted at rest and never appear in a response, a log line or an
// error message; passwords are scrypt hashes; production refuses to start (web and worker) on missing
// or default JWT_SECRET / ENCRYPTION_KEY; the embedded default generates and persists them.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { NextRequest } from "next/server";
import pino from "pino";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signToken } from "@/lib/auth/jwt";
import { resetSecretsCache, secrets } from "@/lib/settings/secrets";
import { prisma } from "@/lib/db/client";
import { logger } from "@/lib/logger";
import { newMember } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { POST as createConnector, GET as listConnectors } from "@/app/api/v1/connectors/route";
import { GET as showConnector, PUT as updateConnector } from "@/app/api/v1/connectors/[id]/route";
import { POST as checkConnection } from "@/app/api/v1/connector_definitions/check_connection/route";
import { POST as login } from "@/app/api/v1/login/route";

const db = useTestDatabase();
const ROOT = path.resolve(__dirname, "../..");
const SECRET = `s3cret-${Math.random().toString(36).slice(2)}-value`;
const OTHER_SECRET = `an0ther-${Math.random().toString(36).slice(2)}-value`;

// Every log line of this process, captured from pino's destination.
const lines: string[] = [];
type Stream = { write(line: string): unknown };
let stream: Stream;
let originalWrite: Stream["write"];
let originalLevel: string;

beforeAll(() => {
  stream = (logger as unknown as Record<symbol, Stream>)[pino.symbols.streamSym];
  originalWrite = stream.write.bind(stream);
  stream.write = (line: string) => lines.push(line);
  originalLevel = logger.level;
  logger.level = "debug";
});
afterAll(() => {
  stream.write = originalWrite;
  logger.level = originalLevel;
});

const call = (url: string, token: string, init: { method?: string; body?: unknown } = {}) =>
  new NextRequest(new URL(url, "http://127.0.0.1"), {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${token}`, ...(init.body ? { "content-type": "application/json" } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
const params = (id: number | string) => ({ params: Promise.resolve({ id: String(id) }) });

describe("connector secrets", () => {
  it("are encrypted at rest and absent from every response, log line and error message", async () => {
    const { user, workspaceId } = await newMember("Admin");
    const { token } = await signToken({ userId: user.id, kind: "session" });
    const configuration = {
      host: "127.0.0.1",
      port: 1, // nothing listens: the check fails, and its message must not carry the password
      database: "nowhere",
      schema: "public",
      credentials: { auth_type: "username/password", username: "postgres", password: SECRET },
    };
    const responses: string[] = [];
    const keep = async (res: Response) => {
      const text = await res.text();
      responses.push(text);
      return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
    };
    const withWs = (url: string) => `${url}${url.includes("?") ? "&" : "?"}`;
    const created = await keep(
      await createConnector(
        new NextRequest(new URL(withWs("/api/v1/connectors"), "http://127.0.0.1"), {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "workspace-id": String(workspaceId), "content-type": "application/json" },
          body: JSON.stringify({ connector: { name: "secret source", connector_type: "source", connector_name: "Postgresql", configuration } }),
        }),
      ),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = Number((created.body.data as { id: string }).id);
    await keep(await showConnector(call(`/api/v1/connectors/${id}`, token), params(id)));
    await keep(await listConnectors(call("/api/v1/connectors", token)));
    // Update with the mask keeps the secret; a new one replaces it; an invalid one is refused.
    await keep(await updateConnector(call(`/api/v1/connectors/${id}`, token, { method: "PUT", body: { connector: { configuration: { ...configuration, credentials: { ...configuration.credentials, password: "*************" } } } } }), params(id)));
    const invalid = await keep(
      await updateConnector(call(`/api/v1/connectors/${id}`, token, { method: "PUT", body: { connector: { configuration: { ...configuration, port: "x", credentials: { ...configuration.credentials, password: OTHER_SECRET } } } } }), params(id)),
    );
    expect(invalid.status).toBe(422);
    const check = await keep(await checkConnection(call("/api/v1/connector_definitions/check_connection", token, { method: "POST", body: { name: "Postgresql", connection_spec: configuration } })));
    expect(check.body.result).toBe("failure");
    // A failed sign-in with the secret as the password: not logged either.
    await keep(await login(new NextRequest(new URL("/api/v1/login", "http://127.0.0.1"), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: user.email, password: SECRET }) })));

    // At rest: the stored row holds no plaintext, yet decrypts to the secret.
    const client = new Client({ connectionString: db.url() });
    await client.connect();
    const { rows } = await client.query("SELECT * FROM connectors WHERE id = $1", [id]);
    await client.end();
    const raw = JSON.stringify(rows[0]);
    expect(raw).not.toContain(SECRET);
    expect(raw).not.toContain("postgres\",\"password");
    const stored = await prisma().connector.findUniqueOrThrow({ where: { id } });
    expect(stored.configurationEncrypted).toBeTruthy();

    expect(responses.length).toBeGreaterThanOrEqual(7);
    for (const text of responses) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(OTHER_SECRET);
    }
    expect(responses[1]).toContain("*************");
    expect(lines.length, "request log lines were captured").toBeGreaterThan(5);
    for (const line of lines) {
      expect(line).not.toContain(SECRET);
      expect(line).not.toContain(OTHER_SECRET);
      expect(line).not.toContain(token);
    }
  });

  it("every log line written during a request carries its request id", async () => {
    lines.length = 0;
    const { user } = await newMember("Admin");
    const { token } = await signToken({ userId: user.id, kind: "session" });
    const res = await listConnectors(new NextRequest(new URL("/api/v1/connectors?page=abc", "http://127.0.0.1"), { headers: { authorization: `Bearer ${token}`, "x-request-id": "ops-req-1" } }));
    expect(res.status).toBe(400);
    expect(res.headers.get("x-request-id")).toBe("ops-req-1");
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.length).toBeGreaterThan(0);
    for (const entry of parsed) expect(entry).toMatchObject({ requestId: "ops-req-1", service: "datasync" });
    expect(parsed.find((e) => e.msg === "request")).toMatchObject({ method: "GET", path: "/api/v1/connectors", status: 400 });
  });
});

describe("passwords", () => {
  it("are stored as scrypt hashes, never as given", async () => {
    const { user } = await newMember("Viewer");
    const row = await prisma().user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.passwordHash).toMatch(/^scrypt[$:]/);
    expect(row.passwordHash).not.toContain("fixture-password");
  });
});

describe("process secrets", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    resetSecretsCache();
  });

  for (const script of ["scripts/start.ts", "scripts/worker.ts"]) {
    it(`${script} refuses to start in production on missing or default secrets`, () => {
      for (const env of [{}, { JWT_SECRET: "changeme", ENCRYPTION_KEY: "changeme" }, { JWT_SECRET: "a-long-enough-jwt-secret-value-123", ENCRYPTION_KEY: "secret" }]) {
        const baseEnv: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production", DATABASE_URL: "postgresql://postgres@127.0.0.1:1/none", LOG_LEVEL: "info", ...env };
        if (!("JWT_SECRET" in env)) delete baseEnv.JWT_SECRET;
        if (!("ENCRYPTION_KEY" in env)) delete baseEnv.ENCRYPTION_KEY;
        // Each start compiles the whole server graph with tsx: on a loaded machine that alone takes a while.
        const result = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, script)], { cwd: ROOT, env: baseEnv, encoding: "utf8", timeout: 150_000 });
        expect(result.status, `${script} ${JSON.stringify(env)}: ${result.stdout}${result.stderr}`).not.toBe(0);
        expect(`${result.stdout}${result.stderr}`).toMatch(/Refusing to start in production: .*(JWT_SECRET|ENCRYPTION_KEY)/);
      }
    }, 480_000);
  }

  it("the embedded default generates them once under DATA_DIR (mode 0600) and reuses them", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "ds-ops-secrets-"));
    dirs.push(dir);
    const saved = { DATA_DIR: process.env.DATA_DIR, JWT_SECRET: process.env.JWT_SECRET, ENCRYPTION_KEY: process.env.ENCRYPTION_KEY };
    try {
      process.env.DATA_DIR = dir;
      delete process.env.JWT_SECRET;
      delete process.env.ENCRYPTION_KEY;
      resetSecretsCache();
      const first = secrets();
      const file = path.join(dir, "secrets.json");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(first);
      expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32);
      expect(Buffer.from(first.encryptionKey, "base64")).toHaveLength(32);
      resetSecretsCache();
      expect(secrets()).toEqual(first);
    } finally {
      Object.assign(process.env, saved);
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      resetSecretsCache();
    }
  });
});
