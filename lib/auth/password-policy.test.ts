import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ValidationFailed } from "@/lib/errors";
import { assertStrongPassword, passwordWeakness } from "./password-policy";

describe("password policy", () => {
  it("refuses passwords a strength estimator scores as trivial, saying why and what would make them stronger", () => {
    for (const p of ["aaaaaaaa", "12345678", "12341234", "abcdefgh", "qwertyuiop", "asdfghjkl;", "1qaz2wsx3edc", "zxcvbnm,", "password", "Password1", "iloveyou", "PASSWORD123"])
      expect(passwordWeakness(p), p).toMatch(/^is too easy to guess/);
    expect(passwordWeakness("aaaaaaaa")).toBe(
      'is too easy to guess (it repeats one character ("aaaa")); make it stronger with a few uncommon words or a longer mix of characters, and leave out repeated characters and groups',
    );
    expect(passwordWeakness("asdfghjkl;")).toMatch(/\(it is a row of keys on the keyboard\).*leave out keyboard patterns$/);
    expect(() => assertStrongPassword("12345678", "member.password")).toThrow(ValidationFailed);
  });

  it("keeps the passphrases people and the test fixtures use", () => {
    for (const p of ["e2e-admin-password", "pw-abc123-long", "pw-x-long", "a-less-guessable-phrase", "correct horse battery", "member-password-1", "new-password-1", "x7!Kq2#pLm"])
      expect(passwordWeakness(p), p).toBeNull();
    expect(() => assertStrongPassword("a-less-guessable-phrase", "password")).not.toThrow();
  });

  it("counts the person's own email and name as guessable, and scores a very long password quickly", () => {
    expect(passwordWeakness("jdoe1234", [])).toBeNull();
    expect(passwordWeakness("jdoe1234", ["jdoe1234@example.com"])).toMatch(/contains your name or email address/);
    expect(passwordWeakness(randomBytes(50_000).toString("hex"))).toBeNull();
  });
});
