// The primary keys a run has read (duplicates within the run, rows gone from a full read). Most keys
// are small non-negative integers: those live in a growable bitmap, 1 bit each (a million ids take
// 125 KB where a Set takes ~40 MB and doubles its table while growing); any other key in a Set.

/** Integer keys below this go to the bitmap (16 MiB at most); larger or other keys to the Set. */
const BITMAP_LIMIT = 2 ** 27;
/** Digits of a bitmap key at most: 9 stays below 2^31, so the arithmetic below stays in small integers. */
const MAX_DIGITS = 9;

export class KeySet {
  private bits = new Uint8Array(8192);
  private readonly others = new Set<string>();

  /**
   * The bitmap position of a canonical decimal integer key ("007" or "1e3" are other keys than 7 and
   * 1000), or -1. Parsed by hand: a regular expression and Number() per key were a tenth of a
   * no-change re-run's own work.
   */
  private static index(key: string): number {
    const length = key.length;
    if (length === 0 || length > MAX_DIGITS || (length > 1 && key.charCodeAt(0) === 48)) return -1;
    let n = 0;
    for (let i = 0; i < length; i++) {
      const digit = key.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) return -1;
      n = n * 10 + digit;
    }
    return n < BITMAP_LIMIT ? n : -1;
  }

  has(key: string): boolean {
    const n = KeySet.index(key);
    if (n < 0) return this.others.has(key);
    const byte = n >>> 3;
    return byte < this.bits.length && (this.bits[byte] & (1 << (n & 7))) !== 0;
  }

  add(key: string): void {
    const n = KeySet.index(key);
    if (n < 0) {
      this.others.add(key);
      return;
    }
    const byte = n >>> 3;
    if (byte >= this.bits.length) {
      let size = this.bits.length;
      while (size <= byte) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[byte] |= 1 << (n & 7);
  }
}
