// The walk's steps for runs and records, the service endpoints and the unknown-path catch-alls (see
// contract-walk.ts). Connector definitions, connectors, models and syncs: contract-walk-data.ts.
import { expect } from "@playwright/test";
import { expectStatus, strongPassword } from "./contract-fixtures";
import type { Steps } from "./contract-walk";
import { unique } from "./data";

const UNKNOWN_PATH = "no-such-endpoint";

export const RUN_STEPS = {
  // Runs and records
  listSyncRuns: async (fx) => {
    const { syncId } = await fx.finishedRun();
    await expectStatus(
      (await fx.admin()).GET("/api/v1/syncs/{sync_id}/sync_runs", { params: { path: { sync_id: syncId } } }),
      200,
    );
  },
  getSyncRun: async (fx) => {
    const { syncId, runId } = await fx.finishedRun();
    await expectStatus(
      (await fx.admin()).GET("/api/v1/syncs/{sync_id}/sync_runs/{id}", {
        params: { path: { sync_id: syncId, id: runId } },
      }),
      200,
    );
  },
  approveSyncRun: async (fx) => {
    const { syncId, runId } = await fx.heldRun();
    const approve = () =>
      fx.admin().then((admin) => admin.POST("/api/v1/syncs/{sync_id}/sync_runs/{id}/approve", { params: { path: { sync_id: syncId, id: runId } } }));
    await expectStatus(approve(), 200);
    // No longer waiting: the documented 409.
    await expectStatus(approve(), 409);
  },
  getSyncRunPlan: async (fx) => {
    const { syncId, runId } = await fx.heldRun();
    const body = await expectStatus(
      (await fx.admin()).GET("/api/v1/syncs/{sync_id}/sync_runs/{id}/plan", { params: { path: { sync_id: syncId, id: runId } } }),
      200,
    );
    expect(JSON.stringify(body)).toContain("samples");
    // A run of a sync without limits in force kept no plan: the documented 404.
    const finished = await fx.finishedRun();
    await expectStatus(
      (await fx.admin()).GET("/api/v1/syncs/{sync_id}/sync_runs/{id}/plan", { params: { path: { sync_id: finished.syncId, id: finished.runId } } }),
      404,
    );
  },
  getSyncRunUndelivered: async (fx) => {
    const { syncId, runId } = await fx.finishedRun();
    const body = await expectStatus(
      (await fx.admin()).GET("/api/v1/syncs/{sync_id}/sync_runs/{id}/undelivered", { params: { path: { sync_id: syncId, id: runId } } }),
      200,
    );
    expect(JSON.stringify(body)).toContain("undelivered_rows");
  },
  cancelSyncRun: async (fx) => {
    const syncId = await fx.newSync(await fx.slowModelId());
    const runId = await fx.trigger(syncId);
    const cancel = () =>
      fx.admin().then((admin) => admin.POST("/api/v1/syncs/{sync_id}/sync_runs/{id}/cancel", { params: { path: { sync_id: syncId, id: runId } } }));
    await expectStatus(cancel(), 200);
    // Ended now: the documented 409.
    await expectStatus(cancel(), 409);
  },
  listSyncRecords: async (fx) => {
    const { syncId, runId } = await fx.finishedRun();
    const body = await expectStatus(
      (await fx.admin()).GET("/api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records", {
        params: { path: { sync_id: syncId, sync_run_id: runId } },
      }),
      200,
    );
    expect(JSON.stringify(body)).toContain("sync_records");
  },
  getSyncRecord: async (fx) => {
    const { syncId, runId } = await fx.finishedRun();
    const admin = await fx.admin();
    const list = await expectStatus(
      admin.GET("/api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records", {
        params: { path: { sync_id: syncId, sync_run_id: runId } },
      }),
      200,
    );
    const id = (list as { data: { id: string }[] }).data[0].id;
    await expectStatus(
      admin.GET("/api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records/{id}", {
        params: { path: { sync_id: syncId, sync_run_id: runId, id } },
      }),
      200,
    );
  },
  exportSyncRecords: async (fx) => {
    const { syncId, runId } = await fx.finishedRun();
    await expectStatus(
      (await fx.admin()).GET("/api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records/export", {
        params: { path: { sync_id: syncId, sync_run_id: runId } },
        parseAs: "text",
      }),
      200,
    );
  },

  // Service
  getHealth: async (fx) => {
    await expectStatus(fx.anonymous().GET("/api/health"), 200);
  },
  getReadiness: async (fx) => {
    await expectStatus(fx.anonymous().GET("/api/ready"), 200);
  },
  getMetrics: async (fx) => {
    // Metrics are served to this machine only: no X-Forwarded-For from elsewhere.
    await expectStatus(fx.local().GET("/api/metrics", { parseAs: "text" }), 200);
  },
  getSetup: async (fx) => {
    await expectStatus(fx.anonymous().GET("/api/v1/setup"), 200);
  },
  createSetup: async (fx) => {
    const password = strongPassword();
    // The test server has its admin: the documented 409.
    await expectStatus(
      fx.anonymous().POST("/api/v1/setup", {
        body: { email: `${unique("setup")}@example.com`, password, name: "Setup" },
      }),
      409,
    );
  },
  getOpenApiDocument: async (fx) => {
    await expectStatus(fx.anonymous().GET("/api/v1/openapi.json"), 200);
  },

  // Unknown paths answer a JSON 404 whatever the method.
  unknownApiPathGet: async (fx) => {
    await expectStatus(fx.anonymous().GET("/api/{path}", { params: { path: { path: UNKNOWN_PATH } } }), 404);
  },
  unknownApiPathPost: async (fx) => {
    await expectStatus(fx.anonymous().POST("/api/{path}", { params: { path: { path: UNKNOWN_PATH } } }), 404);
  },
  unknownApiPathPut: async (fx) => {
    await expectStatus(fx.anonymous().PUT("/api/{path}", { params: { path: { path: UNKNOWN_PATH } } }), 404);
  },
  unknownApiPathPatch: async (fx) => {
    await expectStatus(
      fx.anonymous().PATCH("/api/{path}", { params: { path: { path: UNKNOWN_PATH } } }),
      404,
    );
  },
  unknownApiPathDelete: async (fx) => {
    await expectStatus(
      fx.anonymous().DELETE("/api/{path}", { params: { path: { path: UNKNOWN_PATH } } }),
      404,
    );
  },
  unknownEnterpriseApiPathGet: async (fx) => {
    await expectStatus(
      fx.anonymous().GET("/enterprise/api/{path}", { params: { path: { path: UNKNOWN_PATH } } }),
      404,
    );
  },
  unknownEnterpriseApiPathPost: async (fx) => {
    await expectStatus(
      fx.anonymous().POST("/enterprise/api/{path}", { params: { path: { path: UNKNOWN_PATH } } }),
      404,
    );
  },
  unknownEnterpriseApiPathPut: async (fx) => {
    await expectStatus(
      fx.anonymous().PUT("/enterprise/api/{path}", { params: { path: { path: UNKNOWN_PATH } } }),
      404,
    );
  },
  unknownEnterpriseApiPathPatch: async (fx) => {
    await expectStatus(
      fx.anonymous().PATCH("/enterprise/api/{path}", { params: { path: { path: UNKNOWN_PATH } } }),
      404,
    );
  },
  unknownEnterpriseApiPathDelete: async (fx) => {
    await expectStatus(
      fx.anonymous().DELETE("/enterprise/api/{path}", { params: { path: { path: UNKNOWN_PATH } } }),
      404,
    );
  },
} satisfies Steps;
