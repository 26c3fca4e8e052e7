import { describe, expect, it } from "vitest";
import { boxed, firstAdminBanner } from "./box";

describe("boxed", () => {
  it("frames every line at one width", () => {
    const lines = boxed(["short", "a longer line"]).split("\n");
    expect(lines[0]).toBe("");
    expect(lines.at(-1)).toBe("");
    const frame = lines.slice(1, -1);
    expect(new Set(frame.map((l) => l.length)).size).toBe(1);
    expect(frame[0]).toMatch(/^\+-+\+$/);
    expect(frame[1]).toBe("|  short          |");
  });
});

describe("firstAdminBanner", () => {
  it("shows the generated password once, with the way to reset it", () => {
    const text = firstAdminBanner({ email: "admin@example.com", generatedPassword: "s3cret-generated" }, 3000);
    expect(text).toContain("password:  s3cret-generated");
    expect(text).toContain("npm run admin -- reset-password admin@example.com");
    expect(text).toContain("http://localhost:3000");
  });
  it("never prints a password chosen in ADMIN_PASSWORD", () => {
    expect(firstAdminBanner({ email: "admin@example.com" }, 3000)).toContain("the one in ADMIN_PASSWORD");
  });
});
