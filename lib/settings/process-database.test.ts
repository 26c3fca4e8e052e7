// The application database is handed on by start-up as a value; the outbound allow-list's DEMO
// default follows it.
import { afterEach, describe, expect, it } from "vitest";
import { outboundAllowPrivate } from "./outbound";
import { databaseUrl, setProcessDatabase, usesEmbeddedDatabase } from "./process-database";

const saved = {
  DATABASE_URL: process.env.DATABASE_URL,
  DEMO: process.env.DEMO,
  OUTBOUND_ALLOW_PRIVATE: process.env.OUTBOUND_ALLOW_PRIVATE,
};
afterEach(() => {
  globalThis.__datasyncDatabase = undefined;
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("the process's database", () => {
  it("is DATABASE_URL until start-up records the one it opened", () => {
    delete process.env.DATABASE_URL;
    expect(databaseUrl()).toBeUndefined();
    expect(usesEmbeddedDatabase()).toBe(true);
    process.env.DATABASE_URL = "postgresql://app@db.example:5432/app";
    expect(databaseUrl()).toBe("postgresql://app@db.example:5432/app");
    expect(usesEmbeddedDatabase()).toBe(false);
    setProcessDatabase({ url: "postgresql://postgres@127.0.0.1:54329/datasync", embedded: true });
    expect(databaseUrl()).toBe("postgresql://postgres@127.0.0.1:54329/datasync");
    expect(usesEmbeddedDatabase()).toBe(true);
  });

  it("with DEMO=1 and no OUTBOUND_ALLOW_PRIVATE, lets connectors reach the demo database's host only", () => {
    delete process.env.OUTBOUND_ALLOW_PRIVATE;
    process.env.DEMO = "1";
    setProcessDatabase({ url: "postgresql://postgres@127.0.0.1:54329/datasync", embedded: true });
    expect(outboundAllowPrivate()).toBe("127.0.0.1");
    setProcessDatabase({ url: "postgresql://app@db.internal:5432/app", embedded: false });
    expect(outboundAllowPrivate()).toBe("127.0.0.1,::1");
    process.env.OUTBOUND_ALLOW_PRIVATE = "10.0.0.0/8";
    expect(outboundAllowPrivate()).toBe("10.0.0.0/8");
    process.env.DEMO = "0";
    delete process.env.OUTBOUND_ALLOW_PRIVATE;
    expect(outboundAllowPrivate()).toBe("");
  });
});
