// The walk's steps for sequences and the workspace-level run (see contract-walk.ts).
import { expect } from "@playwright/test";
import { expectStatus, idOf } from "./contract-fixtures";
import type { Steps } from "./contract-walk";

export const SEQUENCE_STEPS = {
  getWorkspaceSyncRun: async (fx) => {
    const { runId } = await fx.finishedRun();
    const body = await expectStatus((await fx.admin()).GET("/api/v1/sync_runs/{id}", { params: { path: { id: runId }, query: { wait: "1" } } }), 200);
    expect(JSON.stringify(body)).toContain('"success"');
  },
  getRunAfter: async (fx) => {
    const id = await fx.syncId();
    await expectStatus((await fx.admin()).GET("/api/v1/syncs/{id}/run_after", { params: { path: { id } } }), 200);
  },
  setRunAfter: async (fx) => {
    const [first, second] = [await fx.newSync(), await fx.newSync()];
    const admin = await fx.admin();
    const put = (id: number, ids: number[]) => admin.PUT("/api/v1/syncs/{id}/run_after", { params: { path: { id } }, body: { run_after: { sync_ids: ids } } });
    await expectStatus(put(second, [first]), 200);
    // The documented 422: the reverse edge would close a cycle.
    await expectStatus(put(first, [second]), 422);
  },
  startSequenceRun: async (fx) => {
    const id = await fx.newSync();
    const body = await expectStatus((await fx.admin()).POST("/api/v1/syncs/{id}/sequence_runs", { params: { path: { id } } }), 201);
    expect(JSON.stringify(body)).toContain("sequence_runs");
  },
  getSequenceRun: async (fx) => {
    const syncId = await fx.newSync();
    const admin = await fx.admin();
    const id = idOf(await expectStatus(admin.POST("/api/v1/syncs/{id}/sequence_runs", { params: { path: { id: syncId } } }), 201));
    const body = await expectStatus(admin.GET("/api/v1/sequence_runs/{id}", { params: { path: { id }, query: { wait: "60" } } }), 200);
    expect(JSON.stringify(body)).toContain('"status":"success"');
  },
} satisfies Steps;
