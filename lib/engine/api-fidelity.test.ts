// The type-fidelity suite (tests/support/type-fidelity.ts) as the API answers it: the 19-type table
// synced PostgreSQL to PostgreSQL, by pass-through and by mapped lines (records kept as COPY text,
// decoded when read) and by the JSON path (rows, lines off), then the records list, one record's detail (source row and payload) and a
// dry-run plan, each read through its real route handler and parsed exactly from the bytes of the
// answer: bigints, numerics, NaN and infinities, intervals and numbers inside JSON show as they left.
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as listRecords } from "@/app/api/v1/syncs/[id]/sync_runs/[run_id]/sync_records/route";
import { GET as getRecord } from "@/app/api/v1/syncs/[id]/sync_runs/[run_id]/sync_records/[record_id]/route";
import { POST as planRoute } from "@/app/api/v1/syncs/[id]/plan/route";
import { signToken } from "@/lib/auth/jwt";
import { parseJsonExact } from "@/lib/connectors/shared/values";
import { newMember } from "@/tests/support/auth-fixtures";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { expectRecordValues, FIDELITY_PATHS, PG_TYPES, pgColumnsDdl, pgInsert, ROWS } from "@/tests/support/type-fidelity";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, pgConnectorConfig, readPath, reloadRun, sql, tableStream } from "./test-support";

useTestDatabase();

const NAMES = ["id", ...PG_TYPES.map((c) => c.name)];
const STANDARD = NAMES.map((c) => ({ from: c, to: c, mapping_type: "standard" }));
let source: { url: string; drop(): Promise<void> };
let destination: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  source = await createScratchDatabase("ds_api_tf_src");
  destination = await createScratchDatabase("ds_api_tf_dst");
  await sql(source.url, `CREATE TABLE awkward (${pgColumnsDdl(PG_TYPES)})`);
  await sql(source.url, pgInsert("awkward", PG_TYPES));
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
  await destination?.drop();
});

type Resource = { id: string; attributes: Record<string, unknown> };

/** Calls a route handler as Next.js would, and parses the answer exactly from its text. */
async function call(handler: (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>, auth: { token: string; workspaceId: number }, path: string, params: Record<string, string>, body?: unknown) {
  const req = new NextRequest(`http://127.0.0.1${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${auth.token}`, "workspace-id": String(auth.workspaceId), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const res = await handler(req, { params: Promise.resolve(params) });
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBeLessThan(300);
  // Never the value model's marker: every number written as itself.
  expect(text).not.toContain("ds:n:");
  return parseJsonExact(text) as { data: unknown };
}

describe("the API shows each of the 19 awkward types exactly", () => {
  for (const { path, suffix, title, computed, rate } of FIDELITY_PATHS) {
    const table = `api_${suffix}`;
    it(`records list and record detail, ${title}`, async () => {
      const { user, workspaceId } = await newMember("Admin");
      const { token } = await signToken({ userId: user.id, kind: "session" });
      const auth = { token, workspaceId };
      await sql(destination.url, `CREATE TABLE ${table} (${pgColumnsDdl(PG_TYPES, ", note text")})`);
      const configuration = computed ? [...STANDARD, { from: "fixed", to: "note", mapping_type: "static" }] : STANDARD;
      const f = await createFixture({
        workspaceId,
        sourceUrl: source.url,
        destination: {
          connectorName: "Postgresql",
          config: pgConnectorConfig(destination.url),
          catalog: catalogOf(tableStream(table), rate ? { request_rate_limit: rate } : {}),
        },
        query: `SELECT ${NAMES.map((n) => `"${n}"`).join(", ")} FROM awkward`,
        sync: { configuration },
      });
      const created = await triggerSync(workspaceId, f.syncId);
      if (path === "rows") process.env.ENGINE_PASS_THROUGH = "0";
      await executeRun(created.id).finally(() => delete process.env.ENGINE_PASS_THROUGH);
      const run = await reloadRun(created.id);
      expect(run).toMatchObject({ successfulRows: ROWS, failedRows: 0 });
      expect(readPath(run)).toBe(path);

      const base = `/api/v1/syncs/${f.syncId}/sync_runs/${created.id}/sync_records`;
      const params = { id: String(f.syncId), run_id: String(created.id) };
      const list = (await call(listRecords, auth, base, params)).data as Resource[];
      expect(list).toHaveLength(ROWS);
      for (const r of list) {
        const id = Number(r.attributes.primary_key);
        expectRecordValues(id, r.attributes.record as Record<string, unknown>);
        const detail = (await call(getRecord, auth, `${base}/${r.id}`, { ...params, record_id: r.id })).data as Resource;
        expectRecordValues(id, detail.attributes.record as Record<string, unknown>);
        if (detail.attributes.payload) expectRecordValues(id, detail.attributes.payload as Record<string, unknown>);
      }
    });
  }

  it("the plan's sample rows and payloads (POST /syncs/{id}/plan)", async () => {
    const { user, workspaceId } = await newMember("Admin");
    const { token } = await signToken({ userId: user.id, kind: "session" });
    await sql(destination.url, `CREATE TABLE api_plan (${pgColumnsDdl(PG_TYPES)})`);
    const f = await createFixture({
      workspaceId,
      sourceUrl: source.url,
      destination: { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog: catalogOf(tableStream("api_plan")) },
      query: `SELECT ${NAMES.map((n) => `"${n}"`).join(", ")} FROM awkward`,
      sync: { configuration: STANDARD },
    });
    const plan = (await call(planRoute, { token, workspaceId }, `/api/v1/syncs/${f.syncId}/plan`, { id: String(f.syncId) }, { sample_size: ROWS })).data as {
      samples: { insert: { primary_key: string; row: Record<string, unknown>; payload: Record<string, unknown> }[] };
    };
    expect(plan.samples.insert).toHaveLength(ROWS);
    for (const sample of plan.samples.insert) {
      expectRecordValues(Number(sample.primary_key), sample.row);
      expectRecordValues(Number(sample.primary_key), sample.payload);
    }
  });
});
