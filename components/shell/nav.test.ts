import { describe, expect, it } from "vitest";
import { NAV, SETTINGS } from "./nav";

describe("the sidebar", () => {
  it("gives every entry an icon of its own", () => {
    const icons = [...NAV, ...SETTINGS].map((item) => item.icon);
    expect(new Set(icons).size).toBe(icons.length);
  });
});
