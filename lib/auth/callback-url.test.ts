import { describe, expect, it } from "vitest";
import { DEFAULT_AFTER_SIGN_IN, safeCallbackPath } from "./callback-url";

const ORIGIN = "http://127.0.0.1:3000";

describe("safeCallbackPath", () => {
  it("keeps paths on our own origin, relative or absolute", () => {
    expect(safeCallbackPath("/syncs", ORIGIN)).toBe("/syncs");
    expect(safeCallbackPath("/syncs/3?tab=runs#top", ORIGIN)).toBe("/syncs/3?tab=runs#top");
    expect(safeCallbackPath(`${ORIGIN}/models?page=2`, ORIGIN)).toBe("/models?page=2");
    expect(safeCallbackPath("settings", ORIGIN)).toBe("/settings");
  });

  it.each([
    ["//127.0.0.2:18080/x"],
    ["/\\127.0.0.2:18080/x"],
    ["\\\\evil.example/x"],
    ["/\t/evil.example/x"],
    ["/\n/evil.example"],
    ["\u0000//evil.example"],
    ["/.//evil.example/x"],
    ["https://evil.example/x"],
    ["http://127.0.0.1:3001/x"],
    ["https://127.0.0.1:3000/x"],
    ["javascript:alert(document.domain)"],
    ["data:text/html,<script>alert(1)</script>"],
    ["http://user@evil.example"],
    [""],
  ])("refuses %j", (value) => {
    expect(safeCallbackPath(value, ORIGIN)).toBe(DEFAULT_AFTER_SIGN_IN);
  });

  it("refuses values that are not strings", () => {
    expect(safeCallbackPath(undefined, ORIGIN)).toBe(DEFAULT_AFTER_SIGN_IN);
    expect(safeCallbackPath(["/syncs"], ORIGIN)).toBe(DEFAULT_AFTER_SIGN_IN);
  });

  it("never returns anything a browser would read as another host", () => {
    for (const value of ["/%2F/evil.example", "/%5Cevil.example", "/%09/evil.example", "/./x", "/a/../../x", "http:evil.example"]) {
      const path = safeCallbackPath(value, ORIGIN);
      expect(new URL(path, ORIGIN).origin, value).toBe(ORIGIN);
      expect(path.startsWith("//"), value).toBe(false);
    }
  });
});
