import { describe, expect, it } from "vitest";
import type { Sync } from "@/lib/api-client/types";
import { createBody, initialValues, syncFormSchema, updateBody } from "./form";

const filled = () => {
  const values = initialValues(undefined, "7");
  values.sync = { ...values.sync, source_id: 3, destination_id: 4, stream_name: "contacts", detect_deletes: true, cursor_field: "updated_at" };
  values.sync.configuration = [{ from: "email", to: "email", mapping_type: "standard" }];
  return values;
};

describe("sync wizard form", () => {
  it("starts a new sync with no ids, or with the model of ?model=", () => {
    expect(initialValues(undefined, null).sync).toMatchObject({ model_id: null, source_id: null, destination_id: null, detect_deletes: false });
    expect(initialValues(undefined, "7").sync.model_id).toBe(7);
  });

  it("refuses to submit without a model or destination, saying which to choose", () => {
    const result = syncFormSchema.safeParse(initialValues(undefined, null));
    expect(result.success).toBe(false);
    const messages = Object.fromEntries((result.error?.issues ?? []).map((i) => [i.path.join("."), i.message]));
    expect(messages).toMatchObject({ "sync.model_id": "Choose a model", "sync.destination_id": "Choose a destination" });
  });

  it("submits the create body the API takes, detect_deletes included", () => {
    const values = syncFormSchema.parse(filled());
    expect(createBody(values)).toMatchObject({ model_id: 7, source_id: 3, destination_id: 4, detect_deletes: true, cursor_field: "updated_at", name: null });
    expect(createBody({ sync: { ...values.sync, sync_mode: "full_refresh" } }).cursor_field).toBeNull();
    expect(updateBody(values)).not.toHaveProperty("cursor_field");
  });

  it("refuses a cron expression that would not run", () => {
    const values = filled();
    values.sync.schedule_type = "cron_expression";
    values.sync.cron_expression = "not a cron";
    const result = syncFormSchema.safeParse(values);
    expect(result.error?.issues.map((i) => i.path.join("."))).toEqual(["sync.cron_expression"]);
  });

  it("does not let a field the schedule type hides block the form: a bad interval, then cron", () => {
    const values = filled();
    values.sync.schedule_type = "interval";
    values.sync.sync_interval = Number.NaN; // an emptied "Every" box
    const interval = syncFormSchema.safeParse(values);
    expect(interval.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["sync.sync_interval", "Enter how many hours to wait between runs: a whole number, 1 or more."],
    ]);
    values.sync.schedule_type = "cron_expression";
    values.sync.cron_expression = "*/5 * * * *";
    const cron = syncFormSchema.safeParse(values);
    expect(cron.success).toBe(true);
    expect(createBody(cron.data!)).toMatchObject({ schedule_type: "cron_expression", sync_interval: null, sync_interval_unit: null, cron_expression: "*/5 * * * *" });
  });

  it("checks the values the schedule type runs on, in the form's words", () => {
    const values = filled();
    values.sync.schedule_type = "interval";
    values.sync.sync_interval = 1.5;
    expect(syncFormSchema.safeParse(values).error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["sync.sync_interval", "Enter a whole number of hours, such as 2; for less than one hour, pick a smaller unit."],
    ]);
    values.sync.schedule_type = "manual";
    values.sync.cron_expression = "x".repeat(300);
    values.sync.timezone = "Nowhere/Land";
    expect(syncFormSchema.safeParse(values).success).toBe(true);
  });

  it("edits a sync with its saved values", () => {
    const at = "2026-01-01T00:00:00.000Z";
    const connector = (id: number, connector_type: "source" | "destination") => ({
      id, name: `c${id}`, description: "", connector_type, workspace_id: 1, connector_name: "Postgresql", icon: "", created_at: at, updated_at: at,
    });
    const sync: Sync = {
      id: "5",
      type: "syncs",
      attributes: {
        name: "", description: "", model_id: 7, source_id: 3, destination_id: 4, stream_name: "contacts", configuration: { email: "email" },
        sync_mode: "full_refresh", schedule_type: "manual", sync_interval: null, sync_interval_unit: null, cron_expression: null, timezone: "UTC",
        cursor_field: null, current_cursor_field: null, detect_deletes: true, live: false, write_mode: "insert", status: "healthy",
        guard: null, effective_guard: { max_delete_percent: 20, max_change_percent: null, max_change_rows: null, refuse_empty_extract: true }, next_run_at: null, last_run: null, last_outcome: null,
        source: connector(3, "source"), destination: connector(4, "destination"),
        model: {
          id: 7, name: "m", description: "", query: "SELECT 1", query_type: "raw_sql", configuration: {}, primary_key: "id", connector_id: 3,
          connector: connector(3, "source"), created_at: at, updated_at: at,
        },
        created_at: at, updated_at: at,
      },
    };
    expect(initialValues(sync, null).sync).toMatchObject({
      sync_mode: "full_refresh",
      schedule_type: "manual",
      sync_interval_unit: "hours",
      detect_deletes: true,
      write_mode: "insert",
      configuration: [{ from: "email", to: "email", mapping_type: "standard" }],
    });
  });
});
