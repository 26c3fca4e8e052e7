// The primary keys a run has read (duplicates within the run, rows gone from a full read). Most keys
// are small non-negative integers: those live in a growable bitmap, 1 bit each (a million ids take
// 125 KB where a Set takes ~40 MB and doubles its table while growing); any other key in a Set.

/** Integer keys below this go to the bitmap (16 MiB at most); larger or other keys to the Set. */
const BITMAP_LIMIT = 2 ** 27;
/** Canonical decimal integers only: "007" or "1e3" are different keys from 7 and 1000. */
const SMALL_INTEGER = /^(0|[1-9]\d{0,8})$/;

export class KeySet {
  private bits = new Uint8Array(8192);
  private readonly others = new Set<string>();

  private static index(key: string): number {
    if (!SMALL_INTEGER.test(key)) return -1;
    const n = Number(key);
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
