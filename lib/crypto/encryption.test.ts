import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MalformedStoredValue } from "@/lib/validation/stored";
import { decrypt, decryptJson, encrypt, encryptJson } from "./encryption";

const settings = z.object({ a: z.number() });

describe("encryption", () => {
  it("round-trips and never stores the plaintext", () => {
    const sealed = encrypt("hunter2-password");
    expect(sealed).not.toContain("hunter2");
    expect(decrypt(sealed)).toBe("hunter2-password");
    expect(decryptJson(settings, encryptJson({ a: 1 }), "settings")).toEqual({ a: 1 });
  });

  it("refuses decrypted JSON of another shape with a 409 naming the value and the member, never its content", () => {
    const sealed = encryptJson({ a: "hunter2" });
    const err = (() => {
      try {
        decryptJson(settings, sealed, "configuration of connector 7");
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(MalformedStoredValue);
    expect(err).toMatchObject({ httpStatus: 409, message: expect.stringMatching(/^Malformed stored configuration of connector 7: a: /) });
    expect(String(err)).not.toContain("hunter2");
  });

  it("uses a fresh IV each time and detects tampering", () => {
    const a = encrypt("x");
    expect(encrypt("x")).not.toBe(a);
    const parts = a.split(":");
    // Flip a bit of the ciphertext (replacing it with a fixed byte would leave it as it was once in 256 runs).
    const sealed = Buffer.from(parts[3], "base64");
    sealed[0] ^= 1;
    parts[3] = sealed.toString("base64");
    expect(() => decrypt(parts.join(":"))).toThrow();
  });
});
