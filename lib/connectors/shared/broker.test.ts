// The pieces of shared/broker.ts that need no broker: names from templates (never from files),
// the message's fields, message ids, the broker URL and which errors are worth a retry.
import { describe, expect, it } from "vitest";
import { brokerTarget, isTransient, messageFields, messageId, renderName } from "./broker";

const SCHEMES = { plain: "redis", tls: "rediss", port: 6379, tlsPort: 6380 };

describe("broker names and messages", () => {
  it("renders a name from the record, and refuses empty, invalid and file-reading templates", () => {
    expect(renderName("orders.{{ region | downcase }}", { region: "EU" }, "subject")).toBe("orders.eu");
    expect(renderName("fixed", {}, "topic")).toBe("fixed");
    expect(() => renderName("{{ missing }}", {}, "key")).toThrow("The key template gave an empty key.");
    expect(() =>
      renderName("a.{{ x }}", { x: "*" }, "subject", (n) => (n.includes("*") ? "no wildcards" : undefined)),
    ).toThrow('The subject "a.*" cannot be used: no wildcards.');
    for (const tag of ['{% include "/etc/passwd" %}', '{% render "/etc/hostname" %}', '{% layout "x" %}']) {
      expect(() => renderName(tag, {}, "topic")).toThrow(/template/);
    }
  });

  it("turns a payload into string fields and a stable message id", () => {
    expect(messageFields({ a: "x", n: 1, o: { k: [1] }, z: null, t: "null", u: undefined })).toEqual({
      fields: { a: "x", n: "1", o: '{"k":[1]}', t: "null" },
      nulls: ["z"],
    });
    expect(messageId({ key: "7", action: "insert", payload: {}, idempotencyKey: "abc" })).toBe("abc");
    expect(messageId({ key: "7", action: "insert", payload: {} })).toBe("record-7");
  });

  it("reads the broker URL, refusing another scheme and a password inside it", () => {
    expect(brokerTarget({ url: "rediss://u@cache.example.com" }, SCHEMES)).toMatchObject({
      host: "cache.example.com",
      port: 6380,
      tls: true,
      username: "u",
    });
    expect(brokerTarget({ url: "redis://[::1]:7000/2", password: "p" }, SCHEMES)).toMatchObject({
      host: "::1",
      port: 7000,
      tls: false,
      password: "p",
    });
    expect(() => brokerTarget({ url: "http://h" }, SCHEMES)).toThrow(
      /must start with redis:\/\/ or rediss:\/\//,
    );
    expect(() => brokerTarget({ url: "redis://u:secret@h" }, SCHEMES)).toThrow(/not in "url"/);
  });

  it("retries connection trouble and missing acknowledgements, not refusals", () => {
    expect(isTransient(Object.assign(new Error("x"), { code: "ECONNRESET" }))).toBe(true);
    expect(isTransient(Object.assign(new Error("x"), { code: "ack_timeout" }))).toBe(true);
    expect(isTransient(new Error("WRONGTYPE Operation against a key holding the wrong kind of value"))).toBe(
      false,
    );
    expect(isTransient(Object.assign(new Error("503"), { code: "503" }))).toBe(false);
  });
});
