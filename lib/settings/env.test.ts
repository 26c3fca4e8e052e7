// The environment module: defaults, forms, and a clear refusal of a malformed value.
import { afterEach, describe, expect, it } from "vitest";
import { boundedCountSql } from "@/lib/connectors/shared/bounded-count";
import { assertValidEnv, env, EnvError } from "./env";
import { MAX_ROW_COUNT_LIMIT } from "./env/engine";

const touched = [
  "ENGINE_BATCH_SIZE",
  "TRUST_PROXY",
  "DATABASE_URL",
  "SMTP_URL",
  "WORKSPACE_MAX_ACTIVE_RUNS",
  "ENGINE_ROW_COUNT_LIMIT",
] as const;
const saved = Object.fromEntries(touched.map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const name of touched) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe("env", () => {
  it("gives the default for an unset or empty variable and the parsed value otherwise", () => {
    delete process.env.ENGINE_BATCH_SIZE;
    expect(env.ENGINE_BATCH_SIZE).toBe(5000);
    process.env.ENGINE_BATCH_SIZE = " ";
    expect(env.ENGINE_BATCH_SIZE).toBe(5000);
    process.env.ENGINE_BATCH_SIZE = "250";
    expect(env.ENGINE_BATCH_SIZE).toBe(250);
  });

  it("reads switches as 1/0 and their spelled-out forms", () => {
    for (const [raw, on] of [
      ["1", true],
      ["0", false],
      ["TRUE", true],
      ["off", false],
      ["yes", true],
    ] as const) {
      process.env.TRUST_PROXY = raw;
      expect(env.TRUST_PROXY).toBe(on);
    }
  });

  it("refuses a malformed number, naming the variable and the form, instead of NaN", () => {
    process.env.ENGINE_BATCH_SIZE = "lots";
    expect(() => env.ENGINE_BATCH_SIZE).toThrow(EnvError);
    expect(() => env.ENGINE_BATCH_SIZE).toThrow(
      'Environment variable ENGINE_BATCH_SIZE must be a whole number ≥ 1; it is "lots".',
    );
    process.env.ENGINE_BATCH_SIZE = "0";
    expect(() => env.ENGINE_BATCH_SIZE).toThrow(/ENGINE_BATCH_SIZE must be a whole number ≥ 1/);
    process.env.WORKSPACE_MAX_ACTIVE_RUNS = "1.5";
    expect(() => env.WORKSPACE_MAX_ACTIVE_RUNS).toThrow(
      /WORKSPACE_MAX_ACTIVE_RUNS must be a whole number ≥ 0/,
    );
  });

  it("bounds the row count limit by what a count will count, instead of lowering it silently", () => {
    process.env.ENGINE_ROW_COUNT_LIMIT = String(MAX_ROW_COUNT_LIMIT);
    expect(env.ENGINE_ROW_COUNT_LIMIT).toBe(MAX_ROW_COUNT_LIMIT);
    expect(boundedCountSql("t", env.ENGINE_ROW_COUNT_LIMIT)).toContain(`LIMIT ${MAX_ROW_COUNT_LIMIT + 1}`);
    process.env.ENGINE_ROW_COUNT_LIMIT = String(MAX_ROW_COUNT_LIMIT + 1);
    expect(() => env.ENGINE_ROW_COUNT_LIMIT).toThrow(/ENGINE_ROW_COUNT_LIMIT must be a whole number from 0 to 100,000,000/);
  });

  it("refuses a switch it cannot read rather than taking it as off", () => {
    process.env.TRUST_PROXY = "maybe";
    expect(() => env.TRUST_PROXY).toThrow(/TRUST_PROXY must be 1 or 0/);
  });

  it("assertValidEnv names every malformed variable, without echoing a URL that may hold a password", () => {
    process.env.ENGINE_BATCH_SIZE = "-3";
    process.env.DATABASE_URL = "mysql://root:hunter2@db/app";
    process.env.SMTP_URL = "smtp://user:pa55@mail:587";
    let message = "";
    try {
      assertValidEnv();
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/DATABASE_URL must be a postgresql:\/\/ URL/);
    expect(message).toMatch(/ENGINE_BATCH_SIZE must be a whole number ≥ 1; it is "-3"/);
    expect(message).not.toMatch(/hunter2|SMTP_URL/);
  });

  it("keeps no value of a variable after it changed", () => {
    process.env.ENGINE_BATCH_SIZE = "10";
    expect(env.ENGINE_BATCH_SIZE).toBe(10);
    process.env.ENGINE_BATCH_SIZE = "11";
    expect(env.ENGINE_BATCH_SIZE).toBe(11);
  });
});
