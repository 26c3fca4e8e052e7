import { describe, expect, it } from "vitest";
import { decrypt, decryptJson, encrypt, encryptJson } from "./encryption";

describe("encryption", () => {
  it("round-trips and never stores the plaintext", () => {
    const sealed = encrypt("hunter2-password");
    expect(sealed).not.toContain("hunter2");
    expect(decrypt(sealed)).toBe("hunter2-password");
    expect(decryptJson(encryptJson({ a: 1 }))).toEqual({ a: 1 });
  });

  it("uses a fresh IV each time and detects tampering", () => {
    const a = encrypt("x");
    expect(encrypt("x")).not.toBe(a);
    const parts = a.split(":");
    parts[3] = Buffer.from("y").toString("base64");
    expect(() => decrypt(parts.join(":"))).toThrow();
  });
});
