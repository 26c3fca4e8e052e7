// The webhook body's schema against what the engine builds: both events parse back unchanged (the
// API answers and redelivery send what was stored), and a body that is not the shape is refused.
import { describe, expect, it } from "vitest";
import type { RunEvent } from "@/lib/engine";
import { pingPayload, runEventPayload } from "@/lib/engine/webhooks/payload";
import { MalformedStoredValue } from "./stored";
import { parseWebhookPayload } from "./webhook-payload";

const at = new Date("2026-11-29T06:00:00.000Z");
const run: RunEvent = {
  runId: 7,
  syncId: 3,
  workspaceId: 1,
  runType: "general",
  status: "success",
  outcome: "succeeded_with_rejections",
  error: null,
  canceledBy: null,
  startedAt: at,
  finishedAt: null,
  counts: { totalQueryRows: 10, totalRows: 10, skippedRows: 0, successfulRows: 9, failedRows: 1, duplicateRows: 0, processedRows: 10 },
};

describe("webhook payload", () => {
  it("reads back a run event and a ping as stored, key for key and in order", () => {
    for (const payload of [runEventPayload("sync_run.succeeded", run, at), pingPayload(1, 5, at)]) {
      const stored: unknown = JSON.parse(JSON.stringify(payload));
      expect(JSON.stringify(parseWebhookPayload(stored, 1))).toBe(JSON.stringify(stored));
    }
  });

  it("refuses a body that is not the envelope, naming the delivery", () => {
    expect(() => parseWebhookPayload({ id: "evt_1", type: "sync_run.succeeded" }, 42)).toThrow(MalformedStoredValue);
    expect(() => parseWebhookPayload("text", 42)).toThrow(/webhook delivery 42/);
  });
});
