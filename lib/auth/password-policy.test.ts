import { describe, expect, it } from "vitest";
import { ValidationFailed } from "@/lib/errors";
import { assertUncommonPassword, isCommonPassword } from "./password-policy";

describe("password policy", () => {
  it("refuses the most common passwords, whatever their case", () => {
    for (const p of ["password", "Password1", "qwertyuiop", "iloveyou", "12345678"])
      expect(isCommonPassword(p), p).toBe(true);
    expect(isCommonPassword("e2e-admin-password")).toBe(false);
    expect(() => assertUncommonPassword("password123", "member.password")).toThrow(ValidationFailed);
    expect(() => assertUncommonPassword("a-less-guessable-phrase", "password")).not.toThrow();
  });
});
