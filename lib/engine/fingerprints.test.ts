// A batch's fingerprints must be exactly node:crypto's md5 of seed + text: sync_states holds
// fingerprints made that way by every earlier run, and one differing byte re-sends every row.
import { hash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { seededBelow } from "@/tests/support/random";
import { fingerprintAll, HexFingerprints } from "./fingerprints";

const md5 = (text: string) => hash("md5", text);

/** Characters of every UTF-8 length, tabs and COPY escapes, and a lone surrogate (encoded as U+FFFD). */
const ALPHABET = ["a", "Z", "0", "\t", "\\n", "é", "€", "𝄞", "\ud800", " ", "{", '"'];

describe("fingerprintAll", () => {
  it("gives node:crypto's md5 of seed + text for texts across every block boundary and encoding", () => {
    const below = seededBelow(14);
    const texts: string[] = ["", "x"];
    // Every length around md5's 55/56/64-byte padding edges, in ASCII…
    for (let n = 40; n <= 140; n++) texts.push("k".repeat(n));
    // …a few long enough to outgrow the hasher's first buffer…
    texts.push("é".repeat(2000), "a".repeat(10_000), "𝄞".repeat(3000));
    // …and random texts, half of them with characters of every UTF-8 length and lone surrogates.
    for (let i = 0; i < 2000; i++) {
      let t = "";
      const len = below(300);
      const ascii = below(2) === 0;
      for (let j = 0; j < len; j++) t += ascii ? String.fromCharCode(32 + below(95)) : ALPHABET[below(ALPHABET.length)];
      texts.push(t);
    }
    // A seed ending in half a surrogate pair that a text's first unit completes.
    texts.push("\udc00x");
    for (const seed of ["", "v1:seed:", "séed€", "a\ud800"]) {
      const digests = fingerprintAll(seed, texts);
      expect(digests.length).toBe(texts.length);
      const mismatched = texts.filter((t, i) => digests.hex(i) !== md5(seed + t));
      expect(mismatched).toEqual([]);
    }
  });

  it("reads each digest as the big-endian words of its hex, like a hex fingerprint", () => {
    const digests = fingerprintAll("s", ["a", "b", "c"]);
    const hex = new HexFingerprints([0, 1, 2].map((i) => digests.hex(i)));
    for (let i = 0; i < 3; i++) {
      for (let w = 0; w < 4; w++) {
        expect(digests.word(i, w)).toBe(parseInt(digests.hex(i).slice(w * 8, w * 8 + 8), 16));
        expect(hex.word(i, w)).toBe(digests.word(i, w));
      }
    }
  });

  it("gives an empty batch, and seeds of a whole block and more", () => {
    expect(fingerprintAll("s", []).length).toBe(0);
    for (const seed of ["s".repeat(64), "é".repeat(70), "x".repeat(130)]) {
      const digests = fingerprintAll(seed, ["", "row", "é"]);
      expect([0, 1, 2].map((i) => digests.hex(i))).toEqual([md5(seed), md5(`${seed}row`), md5(`${seed}é`)]);
    }
  });
});

describe("HexFingerprints", () => {
  it("has no words for a fingerprint that is not 32 hex digits", () => {
    const fps = new HexFingerprints(["", "abc", "g".repeat(32), `${"0".repeat(31)}z`, "A".repeat(32)]);
    expect([0, 1, 2, 3].map((i) => fps.word(i, 0) < 0 || fps.word(i, 3) < 0)).toEqual([true, true, true, true]);
    expect(fps.word(4, 0)).toBe(0xaaaaaaaa);
  });
});
