// A console spec's world: its own schema in the tests' PostgreSQL database, an admin API session,
// and the connectors, models and syncs the spec creates over it, all removed by close().
import { request as playwrightRequest, type APIRequestContext } from "@playwright/test";
import { ADMIN, Api, BASE_URL, loginAs } from "../support/api";
import { pgConfiguration, sql, unique } from "../support/data";
import { expect } from "./fixtures";

export class PgScenario {
  readonly schema: string;
  /** Paths to DELETE at the end, newest first. */
  private readonly created: string[] = [];
  private context?: APIRequestContext;
  private session?: Api;

  constructor(prefix: string) {
    this.schema = unique(prefix);
  }

  get api(): Api {
    if (!this.session) throw new Error("PgScenario.open() first");
    return this.session;
  }

  /** Creates the schema with `tables` (SQL run after CREATE SCHEMA) and signs the admin in (their default workspace: the console's). */
  async open(tables: string): Promise<void> {
    await sql(`CREATE SCHEMA ${this.schema}; ${tables}`);
    this.context = await playwrightRequest.newContext({ baseURL: BASE_URL });
    this.session = new Api({ token: await loginAs(this.context, ADMIN.email, ADMIN.password) });
  }

  /** POSTs and expects `status`; a created resource (201) is removed at close(). */
  async post(path: string, data: unknown, status = 201): Promise<{ data: { id: string } }> {
    const res = await this.api.post(path, data);
    expect(res.status(), await res.text()).toBe(status);
    const body = await res.json();
    if (status === 201) this.track(`${path}/${body.data.id}`);
    return body;
  }

  /** A resource created some other way (the console), removed at close(). */
  track(path: string): void {
    this.created.unshift(path);
  }

  /** A connector on this schema (PostgreSQL unless told otherwise): its id. */
  async connector(type: "source" | "destination", name: string, connectorName = "Postgresql", configuration = pgConfiguration({ schema: this.schema })): Promise<number> {
    const body = await this.post("/api/v1/connectors", { connector: { name, connector_type: type, connector_name: connectorName, configuration } });
    return Number(body.data.id);
  }

  /** A raw SQL model keyed by `id`: its id. */
  async model(name: string, sourceId: number, query: string): Promise<number> {
    const body = await this.post("/api/v1/models", { model: { name, query, query_type: "raw_sql", primary_key: "id", connector_id: sourceId } });
    return Number(body.data.id);
  }

  async attributes<T = Record<string, unknown>>(path: string): Promise<T> {
    const res = await this.api.get(path);
    expect(res.status(), await res.text()).toBe(200);
    return (await res.json()).data.attributes as T;
  }

  async close(): Promise<void> {
    if (this.session) for (const path of this.created) await this.session.delete(path);
    await this.context?.dispose();
    await sql(`DROP SCHEMA IF EXISTS ${this.schema} CASCADE`);
  }
}
