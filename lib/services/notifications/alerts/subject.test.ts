import { describe, expect, it } from "vitest";
import { oneLine, quoted, safeSubject, SUBJECT_MAX, SUBJECT_TEXT_MAX } from "./subject";

describe("alert subjects", () => {
  it("quoted workspace text is one line, without control or format characters", () => {
    expect(quoted("Boom\r\nBcc: victim@example.com")).toBe('"Boom Bcc: victim@example.com"');
    for (const bad of ["a\rb", "a\nb", "a\u0000b", "a\u0085b", "a\u2028b", "a\u2029b", "a\u202Eb", "a\u200Bb", "a\tb", "a\u007Fb"]) {
      expect(quoted(bad)).toBe('"a b"');
    }
  });

  it("cuts long text to SUBJECT_TEXT_MAX characters with an ellipsis, and turns its double quotes into single ones", () => {
    const q = quoted("x".repeat(500));
    expect([...q]).toHaveLength(SUBJECT_TEXT_MAX + 2);
    expect(q.endsWith('…"')).toBe(true);
    expect(quoted('say "hi"')).toBe(`"say 'hi'"`);
    // Cut by code points: an emoji is never split into half a surrogate pair.
    expect(quoted("😀".repeat(100))).toBe(`"${"😀".repeat(SUBJECT_TEXT_MAX - 1)}…"`);
  });

  it("a whole subject is one line of at most SUBJECT_MAX characters", () => {
    expect(oneLine("  a \n\n b  ")).toBe("a b");
    const s = safeSubject(`[Firing] ${"y".repeat(400)}\r\nX-Injected: 1`);
    expect(s).not.toMatch(/[\r\n]/);
    expect([...s].length).toBeLessThanOrEqual(SUBJECT_MAX);
  });
});
