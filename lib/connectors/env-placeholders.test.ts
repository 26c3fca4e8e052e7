// ENV['X'] placeholders resolve only what the operator shares, never the server's own credentials,
// and what they resolve to is scrubbed from tenant-facing sentences.
import { afterEach, describe, expect, it } from "vitest";
import { EnvironmentPlaceholderError, envPlaceholderProblems, envRedactor, resolveEnvPlaceholders } from "./env-placeholders";

afterEach(() => {
  delete process.env.DS_TEST_PASSWORD;
  delete process.env.CONNECTOR_ENV_ALLOWLIST;
});

describe("resolveEnvPlaceholders", () => {
  it("replaces allowed ENV['X'] and ENV[\"X\"] at any depth with the value at call time", () => {
    process.env.CONNECTOR_ENV_ALLOWLIST = "OTHER, DS_TEST_PASSWORD";
    process.env.DS_TEST_PASSWORD = "from-env";
    const config = { host: "ENV[\"DS_TEST_PASSWORD\"]", credentials: { password: "ENV['DS_TEST_PASSWORD']" }, list: ["ENV['DS_TEST_PASSWORD']"], other: "ENV['x" };
    expect(resolveEnvPlaceholders(config)).toEqual({ host: "from-env", credentials: { password: "from-env" }, list: ["from-env"], other: "ENV['x" });
    expect(config.credentials.password).toBe("ENV['DS_TEST_PASSWORD']");
    process.env.DS_TEST_PASSWORD = "rotated";
    expect(resolveEnvPlaceholders(config).credentials.password).toBe("rotated");
  });

  it("resolves nothing by default: the server's environment is not the tenants'", () => {
    process.env.DS_TEST_PASSWORD = "from-env";
    const attempt = () => resolveEnvPlaceholders({ host: "ENV['DS_TEST_PASSWORD']" });
    expect(attempt).toThrow(EnvironmentPlaceholderError);
    expect(attempt).toThrow(/CONNECTOR_ENV_ALLOWLIST/);
    expect(attempt).not.toThrow(/from-env/);
  });

  it("never resolves the server's own credentials, even when the operator lists them", () => {
    process.env.CONNECTOR_ENV_ALLOWLIST = "DATABASE_URL,JWT_SECRET,ENCRYPTION_KEY,ADMIN_PASSWORD";
    for (const name of ["DATABASE_URL", "JWT_SECRET", "ENCRYPTION_KEY", "ADMIN_PASSWORD"]) {
      const previous = process.env[name];
      process.env[name] = `secret-of-${name}`;
      try {
        expect(() => resolveEnvPlaceholders({ host: `ENV['${name}']` })).toThrow(/does not share/);
        expect(envPlaceholderProblems({ nested: { host: `ENV['${name}']` } })).toEqual([{ path: "nested.host", message: expect.stringContaining(name) }]);
      } finally {
        if (previous === undefined) delete process.env[name];
        else process.env[name] = previous;
      }
    }
  });

  it("names an allowed variable that is not set", () => {
    process.env.CONNECTOR_ENV_ALLOWLIST = "DS_TEST_PASSWORD";
    expect(() => resolveEnvPlaceholders({ a: "ENV['DS_TEST_PASSWORD']" })).toThrow(/ENV\['DS_TEST_PASSWORD'\].*not set/);
    expect(envPlaceholderProblems({ a: "ENV['DS_TEST_PASSWORD']" })).toEqual([]);
  });
});

describe("envRedactor", () => {
  it("scrubs what allowed placeholders resolve to, and nothing when there are none", () => {
    process.env.CONNECTOR_ENV_ALLOWLIST = "DS_TEST_PASSWORD";
    process.env.DS_TEST_PASSWORD = "db.internal.example";
    const scrub = envRedactor({ host: "ENV['DS_TEST_PASSWORD']" });
    expect(scrub('could not resolve "db.internal.example"')).toBe('could not resolve "*************"');
    expect(envRedactor({ host: "db" })("db failed")).toBe("db failed");
  });
});
