import { describe, expect, it } from "vitest";
import { maskCredentials } from "./credential-mask";

const MASK = "*************";

describe("maskCredentials", () => {
  it("masks credential headers and members, keeping their names", () => {
    expect(maskCredentials("Authorization: Bearer abc.def-123456")).toBe(`Authorization: Bearer ${MASK}`);
    expect(maskCredentials('{"authorization":"Bearer tok-123456789"}')).toBe(`{"authorization":"Bearer ${MASK}"}`);
    expect(maskCredentials('{"api_key": "k-1234", "x": 1}')).toBe(`{"api_key": "${MASK}", "x": 1}`);
    expect(maskCredentials("https://x/hook?token=s3cr3t&id=4")).toBe(`https://x/hook?token=${MASK}&id=4`);
    expect(maskCredentials("echo: bearer abcdefgh1234")).toBe(`echo: bearer ${MASK}`);
    expect(maskCredentials("Basic dXNlcjpwYXNzd29yZA==")).toBe(`Basic ${MASK}`);
  });

  it("leaves ordinary text alone", () => {
    for (const text of [
      "basic validation failed",
      "password authentication failed for user sync",
      '{"tokens_used": 5, "email": "a@example.com"}',
      'null value in column "email" violates not-null constraint',
    ]) {
      expect(maskCredentials(text)).toBe(text);
    }
  });
});
