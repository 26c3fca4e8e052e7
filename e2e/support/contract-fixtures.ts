// What the OpenAPI contract walk needs before it can call an operation: a workspace of its own,
// members, connectors on the local PostgreSQL test database, a model, a sync and a finished run.
// Every call goes through the generated client, so setting up is checked against the document too.
// Each fixture is made once per worker, on first use (a failed test restarts the worker).
import { createHash, randomBytes } from "node:crypto";
import { expect } from "@playwright/test";
import { Client } from "pg";
import { ADMIN, clientAddress as address } from "./api";
import { appDatabase } from "./app-database";
import { invitationFor } from "./mailbox";
import { contractClient, type ApiClient, type ContractChecker } from "./openapi-contract";
import { ensureTestDatabase, pgConfiguration, sql, unique } from "./data";
import { LogicalPostgres } from "./logical-postgres";

type Answer = { data?: unknown; error?: unknown; response: Response };

/** The answer's status must be `status`; returns its body as parsed JSON. */
export async function expectStatus(pending: Promise<Answer>, status: number): Promise<unknown> {
  const { data, error, response } = await pending;
  expect(response.status, `${response.url}: ${JSON.stringify(error ?? data)?.slice(0, 500)}`).toBe(status);
  return data;
}

const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/** The id of a resource answer: `data.id`, or `id` when the resource comes bare. */
export function idOf(body: unknown): number {
  const b = record(body);
  const id = Number(record(b.data).id ?? b.id);
  expect(Number.isInteger(id) && id > 0, `an id in ${JSON.stringify(body)?.slice(0, 300)}`).toBe(true);
  return id;
}

/** The id of a resource the step creates for itself (the create must answer 201). */
export const createdId = async (pending: Promise<Answer>): Promise<number> =>
  idOf(await expectStatus(pending, 201));

/** data.attributes.<key> of a resource answer. */
export const attribute = (body: unknown, key: string): unknown =>
  record(record(record(body).data).attributes)[key];

export const strongPassword = () => `Contract-${randomBytes(6).toString("hex")}-walk`;

export interface Member {
  userId: number;
  email: string;
  password: string;
  client: ApiClient;
}

export class Fixtures {
  private readonly made = new Map<string, Promise<unknown>>();
  readonly workspaceName = unique("contract");
  readonly srcTable = unique("contract_src");
  readonly dstTable = unique("contract_dst");
  /** The live sync's destination table, apart from the others' so its rows do not mix with theirs. */
  readonly liveTable = unique("contract_live");

  constructor(readonly checker: ContractChecker) {}

  private once<T>(key: string, make: () => Promise<T>): Promise<T> {
    let value = this.made.get(key) as Promise<T> | undefined;
    if (!value) {
      value = make();
      this.made.set(key, value);
    }
    return value;
  }

  /** No token; a client address of its own. */
  anonymous(): ApiClient {
    return contractClient(this.checker, { forwardedFor: address() });
  }

  /** No token, calling from this machine itself. */
  local(): ApiClient {
    return contractClient(this.checker);
  }

  client(token: string, workspaceId?: number): ApiClient {
    return contractClient(this.checker, { token, workspaceId, forwardedFor: address() });
  }

  async login(email: string, password: string): Promise<string> {
    const body = await expectStatus(
      this.anonymous().POST("/api/v1/login", { body: { email, password } }),
      200,
    );
    const token = attribute(body, "token");
    expect(typeof token).toBe("string");
    return String(token);
  }

  adminToken(): Promise<string> {
    return this.once("adminToken", () => this.login(ADMIN.email, ADMIN.password));
  }

  /** The walk's own workspace, the seeded admin being its Admin. */
  workspaceId(): Promise<number> {
    return this.once("workspace", async () => {
      const root = this.client(await this.adminToken());
      return idOf(
        await expectStatus(
          root.POST("/api/v1/workspaces", { body: { workspace: { name: this.workspaceName } } }),
          201,
        ),
      );
    });
  }

  /** The seeded admin in the walk's workspace. */
  async admin(): Promise<ApiClient> {
    return this.client(await this.adminToken(), await this.workspaceId());
  }

  roleIds(): Promise<Record<string, number>> {
    return this.once("roles", async () => {
      const body = record(await expectStatus((await this.admin()).GET("/enterprise/api/v1/roles"), 200));
      const roles = (Array.isArray(body.data) ? body.data : []).map(record);
      return Object.fromEntries(roles.map((r) => [String(record(r.attributes).role_name), Number(r.id)]));
    });
  }

  /** A new account invited into the workspace with the role, accepted through its link, signed in there. */
  async newMember(roleName = "Viewer"): Promise<Member> {
    const { userId, email } = await this.invite(roleName);
    const password = strongPassword();
    await this.acceptInvitation(email, password);
    const workspaceId = await this.workspaceId();
    return { userId, email, password, client: this.client(await this.login(email, password), workspaceId) };
  }

  /** Invites a new address into the walk's workspace with the role; the pending member. */
  async invite(roleName = "Viewer"): Promise<{ userId: number; email: string }> {
    const email = `${unique("contract")}@example.com`;
    const body = await expectStatus(
      (await this.admin()).POST("/api/v1/workspaces/{id}/members", {
        params: { path: { id: await this.workspaceId() } },
        body: { member: { email, name: "Contract member", role_id: (await this.roleIds())[roleName] } },
      }),
      201,
    );
    return { userId: idOf(body), email };
  }

  /** Accepts the invitation mailed to `email`, choosing `password`. */
  async acceptInvitation(email: string, password: string): Promise<void> {
    const { token } = await invitationFor(email);
    await expectStatus(
      this.anonymous().POST("/api/v1/accept_invitation", {
        body: { invitation_token: token, password, password_confirmation: password },
      }),
      200,
    );
  }

  /** A single-use account token (password reset or email confirmation) written the way the server keeps it. */
  async accountToken(userId: number, purpose: "reset_password" | "confirm_email"): Promise<string> {
    const token = randomBytes(32).toString("base64url");
    const db = new Client({ ...(await appDatabase(this.workspaceName)) });
    await db.connect();
    try {
      await db.query(
        `INSERT INTO account_tokens (user_id, purpose, token_hash, expires_at)
         VALUES ($1, $2::account_token_purpose, $3, now() + interval '1 hour')`,
        [userId, purpose, createHash("sha256").update(token, "utf8").digest("hex")],
      );
    } finally {
      await db.end();
    }
    return token;
  }

  /** A confirmation or unsubscribe token for an alert address of the workspace, written the way the server keeps it. */
  async alertLinkToken(email: string, link: "confirm" | "unsubscribe"): Promise<string> {
    const token = randomBytes(32).toString("base64url");
    const hash = createHash("sha256").update(token, "utf8").digest("hex");
    const db = new Client({ ...(await appDatabase(this.workspaceName)) });
    await db.connect();
    try {
      const set = link === "confirm" ? "confirm_token_hash = $2, confirm_expires_at = now() + interval '1 hour'" : "unsubscribe_token_hash = $2";
      const { rowCount } = await db.query(`UPDATE alert_subscriptions SET ${set} WHERE email = $1`, [email, hash]);
      if (!rowCount) throw new Error(`no alert subscription of ${email}`);
    } finally {
      await db.end();
    }
    return token;
  }

  /** Source and destination tables in the local PostgreSQL test database. */
  tables(): Promise<void> {
    return this.once("tables", async () => {
      await ensureTestDatabase();
      await sql(
        `CREATE TABLE ${this.srcTable} (id integer PRIMARY KEY, email text, updated_at timestamptz DEFAULT now())`,
      );
      await sql(
        `INSERT INTO ${this.srcTable} (id, email) SELECT g, 'u' || g || '@example.com' FROM generate_series(1, 20) g`,
      );
      await sql(`CREATE TABLE ${this.dstTable} (id integer PRIMARY KEY, email text NOT NULL)`);
      await sql(`CREATE TABLE ${this.liveTable} (id integer PRIMARY KEY, email text NOT NULL)`);
    });
  }

  async dropTables(): Promise<void> {
    await this.stopLiveSource();
    if (!this.made.has("tables")) return;
    await sql(`DROP TABLE IF EXISTS ${this.srcTable}`);
    await sql(`DROP TABLE IF EXISTS ${this.dstTable}`);
    await sql(`DROP TABLE IF EXISTS ${this.liveTable}`);
  }

  async newConnector(type: "source" | "destination", configuration: Record<string, unknown> = pgConfiguration()): Promise<number> {
    await this.tables();
    const body = await expectStatus(
      (await this.admin()).POST("/api/v1/connectors", {
        body: {
          connector: {
            name: unique(type),
            connector_type: type,
            connector_name: "Postgresql",
            configuration,
          },
        },
      }),
      201,
    );
    return idOf(body);
  }

  sourceId(): Promise<number> {
    return this.once("source", () => this.newConnector("source"));
  }

  /** A destination whose catalog has been discovered (its tables are its streams). */
  destinationId(): Promise<number> {
    return this.once("destination", async () => {
      const id = await this.newConnector("destination");
      await expectStatus(
        (await this.admin()).GET("/api/v1/connectors/{id}/discover", {
          params: { path: { id }, query: { refresh: "true" } },
        }),
        200,
      );
      return id;
    });
  }

  async newModel(query = `SELECT id, email FROM ${this.srcTable}`, connectorId?: number): Promise<number> {
    const body = await expectStatus(
      (await this.admin()).POST("/api/v1/models", {
        body: {
          model: {
            name: unique("model"),
            query,
            query_type: "raw_sql",
            primary_key: "id",
            connector_id: connectorId ?? (await this.sourceId()),
          },
        },
      }),
      201,
    );
    return idOf(body);
  }

  modelId(): Promise<number> {
    return this.once("model", () => this.newModel());
  }

  /** A model slow enough (a sleep per row) for a run to be still active when it is canceled. */
  slowModelId(): Promise<number> {
    return this.once("slowModel", () =>
      this.newModel(`SELECT id, email FROM ${this.srcTable} CROSS JOIN LATERAL (SELECT pg_sleep(0.3)) AS s`),
    );
  }

  /** A manual full-refresh sync of the walk's tables; `changes` replace members of its body (a live sync's). */
  async newSync(modelId?: number, changes: Record<string, unknown> = {}): Promise<number> {
    const body = await expectStatus(
      (await this.admin()).POST("/api/v1/syncs", {
        body: {
          sync: {
            name: unique("sync"),
            source_id: await this.sourceId(),
            destination_id: await this.destinationId(),
            model_id: modelId ?? (await this.modelId()),
            schedule_type: "manual",
            sync_mode: "full_refresh",
            stream_name: this.dstTable,
            configuration: [
              { from: "id", to: "id", mapping_type: "standard" },
              { from: "email", to: "email", mapping_type: "standard" },
            ],
            ...changes,
          },
        },
      }),
      200,
    );
    return idOf(body);
  }

  syncId(): Promise<number> {
    return this.once("sync", () => this.newSync());
  }

  /** Starts a run of the sync; returns the run's id. */
  async trigger(syncId: number): Promise<number> {
    const body = await expectStatus(
      (await this.admin()).POST("/api/v1/schedule_syncs", { body: { schedule_sync: { sync_id: syncId } } }),
      200,
    );
    return idOf(body);
  }

  /** A run of the walk's sync that has finished successfully. */
  finishedRun(): Promise<{ syncId: number; runId: number }> {
    return this.once("run", async () => {
      const syncId = await this.syncId();
      const runId = await this.trigger(syncId);
      const admin = await this.admin();
      await expect
        .poll(
          async () =>
            attribute(
              await expectStatus(
                admin.GET("/api/v1/syncs/{sync_id}/sync_runs/{id}", {
                  params: { path: { sync_id: syncId, id: runId } },
                }),
                200,
              ),
              "status",
            ),
          { timeout: 45_000, intervals: [250, 500, 1000] },
        )
        .toBe("success");
      return { syncId, runId };
    });
  }

  /** Polls the run until its status is `status`. */
  async runStatus(syncId: number, runId: number, status: string): Promise<void> {
    const admin = await this.admin();
    await expect
      .poll(
        async () =>
          attribute(
            await expectStatus(admin.GET("/api/v1/syncs/{sync_id}/sync_runs/{id}", { params: { path: { sync_id: syncId, id: runId } } }), 200),
            "status",
          ),
        { timeout: 45_000, intervals: [250, 500, 1000] },
      )
      .toBe(status);
  }

  /**
   * A run its sync's blast-radius limits hold (needs_approval): a sync with delete detection (its
   * guard's defaults in force) ran once, then its model returns no rows.
   */
  async heldRun(): Promise<{ syncId: number; runId: number }> {
    const modelId = await this.newModel();
    const syncId = await this.newSync(modelId);
    const admin = await this.admin();
    await expectStatus(admin.PUT("/api/v1/syncs/{id}", { params: { path: { id: syncId } }, body: { sync: { detect_deletes: true } } }), 200);
    await this.runStatus(syncId, await this.trigger(syncId), "success");
    await expectStatus(
      admin.PUT("/api/v1/models/{id}", { params: { path: { id: modelId } }, body: { model: { query: `SELECT id, email FROM ${this.srcTable} WHERE false` } } }),
      200,
    );
    const runId = await this.trigger(syncId);
    await this.runStatus(syncId, runId, "needs_approval");
    return { syncId, runId };
  }
  /**
   * A live sync (docs/live-syncs.md) from a table of a wal_level=logical PostgreSQL started for the walk
   * (the shared server runs wal_level=replica) into a table of the walk's destination.
   */
  liveSyncId(): Promise<number> {
    return this.once("liveSync", async () => {
      const source = await this.liveSource();
      await source.exec("CREATE TABLE people (id integer PRIMARY KEY, email text NOT NULL); INSERT INTO people SELECT g, 'p' || g || '@example.com' FROM generate_series(1, 5) g");
      const sourceId = await this.newConnector("source", source.configuration());
      const modelId = await this.newModel("SELECT id, email FROM people", sourceId);
      return this.newSync(modelId, { source_id: sourceId, sync_mode: "incremental", stream_name: this.liveTable, live: true });
    });
  }

  private liveSource(): Promise<LogicalPostgres> {
    return this.once("liveSource", () => LogicalPostgres.start());
  }

  /** Deletes the live sync (which drops its slot), then stops its source. */
  private async stopLiveSource(): Promise<void> {
    if (!this.made.has("liveSource")) return;
    const source = await this.liveSource();
    const syncId = await this.made.get("liveSync")?.catch(() => undefined);
    if (typeof syncId === "number") await (await this.admin()).DELETE("/api/v1/syncs/{id}", { params: { path: { id: syncId } } });
    await source.stop();
  }
}
