// The logs sync records show: stored ones as text, derived ones saying only what is known.
import { describe, expect, it } from "vitest";
import { failureLog, parseWriteTarget, recordLogs, storedLog, unsentLog, writeAction, type LoggedRecord } from "./record-logs";

const record = (over: Partial<LoggedRecord> = {}): LoggedRecord => ({
  status: "success",
  action: "destination_insert",
  primaryKey: "42",
  error: null,
  logs: null,
  ...over,
});
const target = { destination: "Postgresql", stream: "people", upsert: true };

describe("writeAction", () => {
  it("is what the pipeline sends for each action", () => {
    expect(writeAction("destination_insert", true)).toBe("upsert");
    expect(writeAction("destination_update", true)).toBe("upsert");
    expect(writeAction("destination_insert", false)).toBe("insert");
    expect(writeAction("destination_update", false)).toBe("update");
    expect(writeAction("destination_delete", true)).toBe("delete");
  });

  it("in update and insert modes is the write the mode decided, never an upsert", () => {
    expect(writeAction("destination_update", true, "update")).toBe("update");
    expect(writeAction("destination_insert", true, "insert")).toBe("insert");
    expect(writeAction("destination_insert", true, "mirror")).toBe("upsert");
    expect(writeAction("destination_delete", true, "insert")).toBe("delete");
  });
});

describe("logs written by the engine", () => {
  it("names the write and its payload for a failure, and that nothing was sent for a mapping error", () => {
    const failure = failureLog("upsert", "people", { id: 1, email: null }, 'null value in column "email"');
    expect(failure).toEqual({
      request: { line: "upsert into people", body: { id: 1, email: null } },
      response: { line: 'null value in column "email"' },
      level: "error",
    });
    expect(recordLogs(record({ status: "failed", logs: failure }), target)).toEqual({
      request: 'upsert into people\n{"id":1,"email":null}',
      response: 'null value in column "email"',
      level: "error",
    });
    expect(unsentLog("bad template")).toMatchObject({ request: { line: expect.stringMatching(/^Not sent/) }, response: { line: "bad template" } });
  });

  it("are scrubbed, lines and bodies, and take the outcome's level; a shared part once", () => {
    let calls = 0;
    const scrub = (t: string) => {
      calls++;
      return t.split("hunter2").join("*************");
    };
    const response = { line: "HTTP 401", body: { echo: ["hunter2"], n: 1 } };
    const memo = new WeakMap();
    const log = { request: { line: "GET /?key=hunter2" }, response, level: "info" as const };
    expect(storedLog(log, false, scrub, memo)).toEqual({
      request: { line: "GET /?key=*************" },
      response: { line: "HTTP 401", body: { echo: ["*************"], n: 1 } },
      level: "error",
    });
    const before = calls;
    storedLog({ ...log, request: { line: "GET /" } }, false, scrub, memo);
    expect(calls - before).toBe(1);
  });
});

describe("recordLogs", () => {
  it("derives a success's log from the run's write target, or from the action alone", () => {
    expect(recordLogs(record(), target)).toEqual({
      request: "upsert into people (Postgresql): the row mapped from this record (key 42)",
      response: "Accepted by Postgresql.",
      level: "info",
    });
    expect(recordLogs(record({ action: "destination_update" }), null)).toEqual({
      request: "destination_update: the row mapped from this record (key 42)",
      response: "Accepted by the destination.",
      level: "info",
    });
    expect(recordLogs(record({ action: "destination_delete" }), { ...target, upsert: false }).request).toMatch(/^delete from people/);
  });

  it("says a skipped record was not sent, and why", () => {
    const reason = "update mode: key 42 is not in the destination, so it was not created.";
    expect(recordLogs(record({ status: "skipped", error: reason }), { ...target, mode: "update" })).toEqual({
      request: "Not sent (insert into people): the record (key 42) was skipped.",
      response: reason,
      level: "info",
    });
  });

  it("answers a failure without a stored log with its error", () => {
    expect(recordLogs(record({ status: "failed", error: "duplicate key" }), target)).toMatchObject({ response: "duplicate key", level: "error" });
  });

  it("returns stored logs as text, older object logs too (without their headers)", () => {
    const stored = { request: { line: "POST https://h/x (record 2 of 5 in one request)", body: { id: 1 } }, response: { line: "HTTP 200", body: "ok" }, level: "info" };
    expect(recordLogs(record({ logs: stored }), target)).toEqual({
      request: 'POST https://h/x (record 2 of 5 in one request)\n{"id":1}',
      response: "HTTP 200\nok",
      level: "info",
    });
    const legacy = {
      level: "error",
      request: { method: "POST", url: "https://u:p@h/x", headers: { authorization: "*************" }, body: '{"id":1}' },
      response: { status: 500, headers: {}, body: "boom" },
    };
    expect(recordLogs(record({ status: "failed", logs: legacy }), target)).toEqual({
      request: 'POST https://h/x\n{"id":1}',
      response: "HTTP 500\nboom",
      level: "error",
    });
    expect(recordLogs(record({ status: "failed", logs: { level: "error", response: { error: "timed out" } } }), null)).toEqual({
      request: "",
      response: "timed out",
      level: "error",
    });
  });
});

describe("parseWriteTarget", () => {
  it("accepts only a whole target", () => {
    expect(parseWriteTarget(target)).toEqual(target);
    expect(parseWriteTarget({ ...target, mode: "insert" })).toEqual({ ...target, mode: "insert" });
    expect(parseWriteTarget({ ...target, mode: "bogus" })).toEqual(target);
    expect(parseWriteTarget({ destination: "Http" })).toBeNull();
    expect(parseWriteTarget(null)).toBeNull();
  });
});

describe("secrets cut by a log's length limit", () => {
  // A receiver that echoes the request's headers (httpbin's /anything does) puts the Authorization
  // value in its answer; when the record log's 2 KB limit falls inside it, the part before the cut
  // no longer equals the whole secret, and a scrub by whole value would let half of it through.
  it("masks the part of a secret left before the cut", async () => {
    const { exchangeLog } = await import("@/lib/connectors/shared/http-outcomes");
    const { redact } = await import("@/lib/connectors/shared/secrets");
    const secret = "Bearer sk_live_0123456789abcdefghijklmnopqrstuvwxyz";
    // The cut (2048 characters) falls 20 characters into the secret.
    const before = '{"pad":"","headers":{"Authorization":"'.length;
    const echoed = JSON.stringify({ pad: "x".repeat(2048 - before - 20), headers: { Authorization: secret } });
    expect(echoed.indexOf(secret)).toBe(2048 - 20);
    const log = exchangeLog(
      {
        request: { method: "POST", url: "https://hooks.example.com/in", headers: { Authorization: secret }, body: "{}" },
        response: { status: 200, headers: {}, body: echoed },
        status: 200,
        bodyText: echoed,
      },
      true,
    );
    const stored = JSON.stringify(storedLog(log, true, (t) => redact(t, [secret])));
    expect(stored).toContain("… (");
    expect(stored).not.toContain(secret.slice(0, 12));
  });

  it("leaves a cut alone where no secret was cut, and masks each cut secret", async () => {
    const { redact } = await import("@/lib/connectors/shared/secrets");
    const secrets = ["hunter2-long-secret", "other-secret-value"];
    expect(redact("hello wor… (3 more characters)", secrets)).toBe("hello wor… (3 more characters)");
    expect(redact("a hunter2-lo… (9 more characters) b other-sec… (8 more characters)", secrets)).toBe(
      "a *************… (9 more characters) b *************… (8 more characters)",
    );
  });
});
