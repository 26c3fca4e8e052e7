import { describe, expect, it } from "vitest";
import { eventChanges, splitEvents } from "./webhook-event-changes";

const stored = ["sync_run.failed", "sync_run.someday_event", "sync_run.succeeded"];

describe("webhook event changes", () => {
  it("splits the events this console knows from the others", () => {
    expect(splitEvents(stored)).toEqual({ known: ["sync_run.failed", "sync_run.succeeded"], other: ["sync_run.someday_event"] });
  });

  it("unchanged events are not sent, so an unknown one is never written away", () => {
    expect(eventChanges(["sync_run.succeeded", "sync_run.failed"], stored)).toEqual({});
  });

  it("changed events are sent with the unknown ones kept", () => {
    expect(eventChanges(["sync_run.failed"], stored)).toEqual({ events: ["sync_run.failed", "sync_run.someday_event"] });
  });
});
