// Each serializer's output against its response schema (*.schema.ts), for the values types cannot
// pin: dates as ISO strings, nulls where a column is unset, enum values, masked configurations,
// every connector definition. The types keep fields and schemas in step; this keeps the values.
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { listDefinitions } from "@/lib/connectors/registry";
import { encryptJson } from "@/lib/crypto/encryption";
import type { Catalog, Connector, Role, SyncRun } from "@/lib/generated/prisma/client";
import type { SyncRecord } from "@/lib/engine";
import type { SyncView } from "@/lib/services/syncs/syncs";
import { catalogRecordSchema, catalogSchema } from "./catalogs.schema";
import { serializeCatalog, serializeCatalogRecord } from "./catalogs";
import { connectionStatusSchema } from "./connection-status.schema";
import { serializeConnectionStatus } from "./connection-status";
import { connectorDefinitionSchema } from "./connector-definitions.schema";
import { serializeConnectorDefinition } from "./connector-definitions";
import { connectorSchema } from "./connectors.schema";
import { serializeConnector } from "./connectors";
import { roleSchema } from "./role.schema";
import { serializeRole } from "./role";
import { syncRecordSchema } from "./sync-records.schema";
import { serializeSyncRecord } from "./sync-records";
import { syncRunSchema } from "./sync-runs.schema";
import { serializeSyncRun } from "./sync-runs";
import { actorAccess } from "@/lib/auth/actors";
import { MalformedStoredValue } from "@/lib/validation/stored";
import { SYSTEM_ROLES } from "@/lib/auth/permissions";
import { syncSchema } from "./syncs.schema";
import { serializeSync } from "./syncs";

const at = new Date("2026-11-23T10:00:00.000Z");

/** Parses strictly: the schemas are strict objects, so an extra or missing member fails too. */
function expectValid(schema: z.ZodType, value: unknown) {
  const result = schema.safeParse(JSON.parse(JSON.stringify(value)));
  expect(result.success ? [] : result.error.issues).toEqual([]);
}

const connector: Connector = {
  id: 3,
  workspaceId: 1,
  connectorType: "source",
  connectorName: "Postgresql",
  category: "data",
  name: "Warehouse",
  description: "",
  configurationEncrypted: encryptJson({ host: "db", port: 5432, credentials: { username: "sync", password: "hunter2" } }),
  createdAt: at,
  updatedAt: at,
};

const run = (over: Partial<SyncRun>): SyncRun => ({
  id: 7,
  workspaceId: 1,
  syncId: 5,
  status: "pending",
  syncRunType: "general",
  startedAt: null,
  finishedAt: null,
  totalQueryRows: 0,
  totalRows: 0,
  skippedRows: 0,
  successfulRows: 0,
  failedRows: 0,
  duplicateRows: 0,
  processedRows: 0,
  timings: {},
  error: null,
  attempts: 0,
  waitingUntil: null,
  retryWaits: 0,
  writeTarget: null,
  recordColumns: null,
  estimatedRows: null,
  estimateSource: null,
  canceledBy: null,
  testPrimaryKey: null,
  plan: null,
  approvedBy: null,
  createdAt: at,
  updatedAt: at,
  ...over,
});

describe("serializers answer what their schemas say", () => {
  it("sync runs: pending, finished, paused", () => {
    expectValid(syncRunSchema, serializeSyncRun(run({}), { actors: true }));
    expectValid(syncRunSchema, serializeSyncRun(run({ status: "success", startedAt: at, finishedAt: at, timings: { extract_ms: 3 } }), { actors: true }));
    const paused = serializeSyncRun(run({ status: "paused", waitingUntil: at, error: "Retry-After: 60" }), { actors: true });
    expectValid(syncRunSchema, paused);
    expect(paused.attributes.waiting_until).toBe(at.toISOString());
  });

  it("sync records, with a stored log and without one", () => {
    const record: SyncRecord = {
      id: BigInt(9),
      syncId: 5,
      syncRunId: 7,
      primaryKey: "42",
      record: { email: "a@example.com" },
      status: "failed",
      action: "destination_insert",
      error: "refused",
      logs: null,
      createdAt: at,
      updatedAt: at,
    };
    expectValid(syncRecordSchema, serializeSyncRecord(record));
    expectValid(syncRecordSchema, serializeSyncRecord({ ...record, status: "success", error: null }, { destination: "Postgresql", stream: "users", upsert: true }));
  });

  it("a sync whose schedule leaves interval, unit, cron and cursor unset, with and without a last run", () => {
    const iso = at.toISOString();
    const summary = { ...connector, connectorType: "source" as const, createdAt: iso, updatedAt: iso };
    const sync: SyncView = {
      id: 5,
      workspaceId: 1,
      sourceId: 3,
      destinationId: 4,
      modelId: 6,
      name: "",
      description: "",
      configuration: [],
      scheduleType: "manual",
      syncMode: "full_refresh",
      syncInterval: null,
      syncIntervalUnit: null,
      cronExpression: null,
      timezone: "UTC",
      streamName: "users",
      cursorField: null,
      currentCursorField: null,
      detectDeletes: false,
      live: false,
      writeMode: "upsert",
      guard: null,
      status: "pending",
      nextRunAt: null,
      deletedAt: null,
      createdAt: iso,
      updatedAt: iso,
      source: summary,
      destination: { ...summary, id: 4, connectorType: "destination", connectorName: "Nowhere" },
      model: {
        id: 6,
        name: "Users",
        description: "",
        query: "SELECT 1",
        queryType: "raw_sql",
        configuration: {},
        primaryKey: "id",
        connectorId: 3,
        createdAt: iso,
        updatedAt: iso,
        connector: summary,
      },
      lastRun: null,
    };
    const serialized = serializeSync(sync, { actors: true });
    expectValid(syncSchema, serialized);
    expect(serialized.attributes.cron_expression).toBeNull();
    expectValid(syncSchema, serializeSync({ ...sync, lastRun: { id: 7, status: "success", syncRunType: "test", startedAt: iso, finishedAt: null } }, { actors: true }));
    // Who canceled the latest run: named to callers who may read members or the audit log only.
    const canceled = { id: 8, status: "failed" as const, failedRows: 0, error: null, canceledBy: "Ada Lovelace", finishedAt: iso, successfulRows: 0, approvedBy: "Ada Lovelace", held: true };
    const withCancel = { ...sync, lastRun: { ...canceled, syncRunType: "general" as const, startedAt: iso }, lastEnded: canceled };
    expect(serializeSync(withCancel, { actors: true }).attributes.last_outcome).toMatchObject({ outcome: "canceled", canceled_by: "Ada Lovelace" });
    const hidden = serializeSync(withCancel, { actors: false });
    expectValid(syncSchema, hidden);
    expect(hidden.attributes.last_outcome).toMatchObject({ outcome: "canceled", canceled_by: null });
    expect(hidden.attributes.last_run).toMatchObject({ outcome: "canceled", canceled_by: null });
    expect(hidden.attributes.last_outcome).toMatchObject({ approved: true, approved_by: null, held: true, successful_rows: 0 });
    expect(JSON.stringify(hidden)).not.toContain("Ada");
  });

  it("a run's canceled_by shows only to callers who may read members or the audit log; its outcome to all", () => {
    const canceled = run({ status: "failed", startedAt: at, finishedAt: at, canceledBy: "Ada Lovelace" });
    expect(serializeSyncRun(canceled, { actors: true }).attributes).toMatchObject({ outcome: "canceled", canceled_by: "Ada Lovelace" });
    expect(serializeSyncRun(canceled, { actors: false }).attributes).toMatchObject({ outcome: "canceled", canceled_by: null });
    const roles = Object.fromEntries(SYSTEM_ROLES.map((r) => [r.name, actorAccess(r).actors]));
    expect(roles).toEqual({ Admin: true, Member: true, Viewer: false });
  });

  it("connectors, with secrets masked", () => {
    const serialized = serializeConnector(connector);
    expectValid(connectorSchema, serialized);
    expect(JSON.stringify(serialized)).not.toContain("hunter2");
    // A connector whose definition is gone is masked whole.
    expectValid(connectorSchema, serializeConnector({ ...connector, connectorName: "Retired" }));
  });

  it("catalogs, as the bare record and as the resource", () => {
    const catalog: Catalog = {
      id: 2,
      workspaceId: 1,
      connectorId: 4,
      // As buildCatalog stores it; a discovered destination's extra member passes through.
      catalog: {
        streams: [{ name: "users", url: "users", json_schema: {}, batch_support: false, batch_size: 0, request_method: "POST" }],
        request_rate_limit: 0,
        request_rate_limit_unit: "minute",
        request_rate_concurrency: 1,
        supported_write_modes: ["upsert"],
      },
      catalogHash: "abc",
      createdAt: at,
      updatedAt: at,
    };
    expectValid(catalogRecordSchema, serializeCatalogRecord(catalog));
    expectValid(catalogSchema, serializeCatalog(catalog));
    expect(serializeCatalog(catalog).attributes.catalog.supported_write_modes).toEqual(["upsert"]);
    // A stored catalog that is not the documented shape is a 409 naming it, never answered as is.
    expect(() => serializeCatalog({ ...catalog, catalog: { streams: [{ name: "users" }] } })).toThrow(MalformedStoredValue);
  });

  it("roles, system and custom", () => {
    const role: Role = {
      id: 1,
      workspaceId: null,
      name: "Admin",
      description: "",
      roleType: "system",
      policies: { permissions: {} },
      createdAt: at,
      updatedAt: at,
    };
    expectValid(roleSchema, serializeRole(role));
    expectValid(roleSchema, serializeRole({ ...role, workspaceId: 1, roleType: "custom" }));
  });

  it("connection checks, either outcome", () => {
    expectValid(connectionStatusSchema, serializeConnectionStatus({ result: "success", details: "Connected." }));
    expectValid(connectionStatusSchema, serializeConnectionStatus({ result: "failure", details: "Refused." }));
  });

  it("every connector definition", () => {
    const definitions = listDefinitions();
    expect(definitions.length).toBeGreaterThan(3);
    for (const d of definitions) expectValid(connectorDefinitionSchema, serializeConnectorDefinition(d));
  });
});

describe("stored JSON the serializers read", () => {
  it("a run's timings: {} (not started) and an older version's phases read as 0 for the phases not stored", () => {
    expect(serializeSyncRun(run({}), { actors: true }).attributes.timings).toEqual({ query: 0, diff: 0, load: 0, wait: 0, record: 0 });
    expect(serializeSyncRun(run({ timings: { wait: 2500, extract_ms: 3 } }), { actors: true }).attributes.progress.rate_limit_wait_seconds).toBe(2.5);
  });

  it("a value that does not match its shape is a 409 naming it, never a 500 or an answer its schema breaks", () => {
    const refused = (serialize: () => unknown, message: string) => {
      expect(serialize).toThrow(MalformedStoredValue);
      expect(serialize).toThrow(message);
      expect(new MalformedStoredValue(message).httpStatus).toBe(409);
    };
    refused(() => serializeSyncRun(run({ timings: { wait: "long" } }), { actors: true }), "Malformed stored timings of run 7: wait: ");
    refused(() => serializeSyncRun(run({ timings: [1, 2] }), { actors: true }), "Malformed stored timings of run 7: (root): ");
    const role = { id: 2, workspaceId: 1, name: "Ops", description: "", roleType: "custom", policies: { permissions: { sync: { read: "yes" } } }, createdAt: at, updatedAt: at } satisfies Role;
    refused(() => serializeRole(role), "Malformed stored policies of role 2: permissions.sync.read: ");
  });
});
