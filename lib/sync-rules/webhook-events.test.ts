import { describe, expect, it } from "vitest";
import { SyncRunStatus } from "@/lib/generated/prisma/enums";
import { runEventFor } from "./webhook-events";

describe("runEventFor", () => {
  it("sends an event for the first start, a hold for approval and every end; nothing for the steps between", () => {
    const sent = Object.fromEntries(Object.values(SyncRunStatus).map((s) => [s, runEventFor(s) ?? null]));
    expect(sent).toEqual({
      pending: null,
      queued: null,
      started: "sync_run.started",
      querying: null,
      in_progress: null,
      paused: null,
      needs_approval: "sync_run.needs_approval",
      success: "sync_run.succeeded",
      failed: "sync_run.failed",
      canceled: "sync_run.failed",
    });
  });
});
