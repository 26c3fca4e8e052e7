// MD5 (RFC 1321) of a fixed seed followed by a string, the string written as UTF-8 into one reused
// buffer after the seed: no concatenation, no allocation, no hash object per row. fingerprints.ts runs
// it for every row a sync reads, where node:crypto's one-shot hash (flattening seed + text, a C++ hash
// object per call, a hex string) was the largest part of a no-change re-run's worker time (~1.2 µs a
// row; this ~0.7). hash-wasm, measured in place, cost more than node:crypto, and a version reading
// char codes one by one in JavaScript more still. Not for security: a change detector that must equal
// node:crypto's md5 byte for byte (fingerprints.test.ts holds it to that).
import { keepShape } from "@/lib/runtime/keep-shape";

/** Whether an Int32Array reads bytes little-endian, as MD5's words are (fingerprints.ts falls back elsewhere). */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The 64-byte block at word `o` of `w` (16 little-endian words) folded into the state `h`: the 64 steps written out. */
// prettier-ignore
function compress(h: Int32Array, w: Int32Array, o: number): void {
  const x0 = w[o], x1 = w[o + 1], x2 = w[o + 2], x3 = w[o + 3], x4 = w[o + 4], x5 = w[o + 5], x6 = w[o + 6], x7 = w[o + 7];
  const x8 = w[o + 8], x9 = w[o + 9], x10 = w[o + 10], x11 = w[o + 11], x12 = w[o + 12], x13 = w[o + 13], x14 = w[o + 14], x15 = w[o + 15];
  let a = h[0], b = h[1], c = h[2], d = h[3];
  let n: number;
  n = (a + ((b & c) | (~b & d)) + x0 + 0xd76aa478) | 0; a = (((n << 7) | (n >>> 25)) + b) | 0;
  n = (d + ((a & b) | (~a & c)) + x1 + 0xe8c7b756) | 0; d = (((n << 12) | (n >>> 20)) + a) | 0;
  n = (c + ((d & a) | (~d & b)) + x2 + 0x242070db) | 0; c = (((n << 17) | (n >>> 15)) + d) | 0;
  n = (b + ((c & d) | (~c & a)) + x3 + 0xc1bdceee) | 0; b = (((n << 22) | (n >>> 10)) + c) | 0;
  n = (a + ((b & c) | (~b & d)) + x4 + 0xf57c0faf) | 0; a = (((n << 7) | (n >>> 25)) + b) | 0;
  n = (d + ((a & b) | (~a & c)) + x5 + 0x4787c62a) | 0; d = (((n << 12) | (n >>> 20)) + a) | 0;
  n = (c + ((d & a) | (~d & b)) + x6 + 0xa8304613) | 0; c = (((n << 17) | (n >>> 15)) + d) | 0;
  n = (b + ((c & d) | (~c & a)) + x7 + 0xfd469501) | 0; b = (((n << 22) | (n >>> 10)) + c) | 0;
  n = (a + ((b & c) | (~b & d)) + x8 + 0x698098d8) | 0; a = (((n << 7) | (n >>> 25)) + b) | 0;
  n = (d + ((a & b) | (~a & c)) + x9 + 0x8b44f7af) | 0; d = (((n << 12) | (n >>> 20)) + a) | 0;
  n = (c + ((d & a) | (~d & b)) + x10 + 0xffff5bb1) | 0; c = (((n << 17) | (n >>> 15)) + d) | 0;
  n = (b + ((c & d) | (~c & a)) + x11 + 0x895cd7be) | 0; b = (((n << 22) | (n >>> 10)) + c) | 0;
  n = (a + ((b & c) | (~b & d)) + x12 + 0x6b901122) | 0; a = (((n << 7) | (n >>> 25)) + b) | 0;
  n = (d + ((a & b) | (~a & c)) + x13 + 0xfd987193) | 0; d = (((n << 12) | (n >>> 20)) + a) | 0;
  n = (c + ((d & a) | (~d & b)) + x14 + 0xa679438e) | 0; c = (((n << 17) | (n >>> 15)) + d) | 0;
  n = (b + ((c & d) | (~c & a)) + x15 + 0x49b40821) | 0; b = (((n << 22) | (n >>> 10)) + c) | 0;
  n = (a + ((b & d) | (c & ~d)) + x1 + 0xf61e2562) | 0; a = (((n << 5) | (n >>> 27)) + b) | 0;
  n = (d + ((a & c) | (b & ~c)) + x6 + 0xc040b340) | 0; d = (((n << 9) | (n >>> 23)) + a) | 0;
  n = (c + ((d & b) | (a & ~b)) + x11 + 0x265e5a51) | 0; c = (((n << 14) | (n >>> 18)) + d) | 0;
  n = (b + ((c & a) | (d & ~a)) + x0 + 0xe9b6c7aa) | 0; b = (((n << 20) | (n >>> 12)) + c) | 0;
  n = (a + ((b & d) | (c & ~d)) + x5 + 0xd62f105d) | 0; a = (((n << 5) | (n >>> 27)) + b) | 0;
  n = (d + ((a & c) | (b & ~c)) + x10 + 0x02441453) | 0; d = (((n << 9) | (n >>> 23)) + a) | 0;
  n = (c + ((d & b) | (a & ~b)) + x15 + 0xd8a1e681) | 0; c = (((n << 14) | (n >>> 18)) + d) | 0;
  n = (b + ((c & a) | (d & ~a)) + x4 + 0xe7d3fbc8) | 0; b = (((n << 20) | (n >>> 12)) + c) | 0;
  n = (a + ((b & d) | (c & ~d)) + x9 + 0x21e1cde6) | 0; a = (((n << 5) | (n >>> 27)) + b) | 0;
  n = (d + ((a & c) | (b & ~c)) + x14 + 0xc33707d6) | 0; d = (((n << 9) | (n >>> 23)) + a) | 0;
  n = (c + ((d & b) | (a & ~b)) + x3 + 0xf4d50d87) | 0; c = (((n << 14) | (n >>> 18)) + d) | 0;
  n = (b + ((c & a) | (d & ~a)) + x8 + 0x455a14ed) | 0; b = (((n << 20) | (n >>> 12)) + c) | 0;
  n = (a + ((b & d) | (c & ~d)) + x13 + 0xa9e3e905) | 0; a = (((n << 5) | (n >>> 27)) + b) | 0;
  n = (d + ((a & c) | (b & ~c)) + x2 + 0xfcefa3f8) | 0; d = (((n << 9) | (n >>> 23)) + a) | 0;
  n = (c + ((d & b) | (a & ~b)) + x7 + 0x676f02d9) | 0; c = (((n << 14) | (n >>> 18)) + d) | 0;
  n = (b + ((c & a) | (d & ~a)) + x12 + 0x8d2a4c8a) | 0; b = (((n << 20) | (n >>> 12)) + c) | 0;
  n = (a + (b ^ c ^ d) + x5 + 0xfffa3942) | 0; a = (((n << 4) | (n >>> 28)) + b) | 0;
  n = (d + (a ^ b ^ c) + x8 + 0x8771f681) | 0; d = (((n << 11) | (n >>> 21)) + a) | 0;
  n = (c + (d ^ a ^ b) + x11 + 0x6d9d6122) | 0; c = (((n << 16) | (n >>> 16)) + d) | 0;
  n = (b + (c ^ d ^ a) + x14 + 0xfde5380c) | 0; b = (((n << 23) | (n >>> 9)) + c) | 0;
  n = (a + (b ^ c ^ d) + x1 + 0xa4beea44) | 0; a = (((n << 4) | (n >>> 28)) + b) | 0;
  n = (d + (a ^ b ^ c) + x4 + 0x4bdecfa9) | 0; d = (((n << 11) | (n >>> 21)) + a) | 0;
  n = (c + (d ^ a ^ b) + x7 + 0xf6bb4b60) | 0; c = (((n << 16) | (n >>> 16)) + d) | 0;
  n = (b + (c ^ d ^ a) + x10 + 0xbebfbc70) | 0; b = (((n << 23) | (n >>> 9)) + c) | 0;
  n = (a + (b ^ c ^ d) + x13 + 0x289b7ec6) | 0; a = (((n << 4) | (n >>> 28)) + b) | 0;
  n = (d + (a ^ b ^ c) + x0 + 0xeaa127fa) | 0; d = (((n << 11) | (n >>> 21)) + a) | 0;
  n = (c + (d ^ a ^ b) + x3 + 0xd4ef3085) | 0; c = (((n << 16) | (n >>> 16)) + d) | 0;
  n = (b + (c ^ d ^ a) + x6 + 0x04881d05) | 0; b = (((n << 23) | (n >>> 9)) + c) | 0;
  n = (a + (b ^ c ^ d) + x9 + 0xd9d4d039) | 0; a = (((n << 4) | (n >>> 28)) + b) | 0;
  n = (d + (a ^ b ^ c) + x12 + 0xe6db99e5) | 0; d = (((n << 11) | (n >>> 21)) + a) | 0;
  n = (c + (d ^ a ^ b) + x15 + 0x1fa27cf8) | 0; c = (((n << 16) | (n >>> 16)) + d) | 0;
  n = (b + (c ^ d ^ a) + x2 + 0xc4ac5665) | 0; b = (((n << 23) | (n >>> 9)) + c) | 0;
  n = (a + (c ^ (b | ~d)) + x0 + 0xf4292244) | 0; a = (((n << 6) | (n >>> 26)) + b) | 0;
  n = (d + (b ^ (a | ~c)) + x7 + 0x432aff97) | 0; d = (((n << 10) | (n >>> 22)) + a) | 0;
  n = (c + (a ^ (d | ~b)) + x14 + 0xab9423a7) | 0; c = (((n << 15) | (n >>> 17)) + d) | 0;
  n = (b + (d ^ (c | ~a)) + x5 + 0xfc93a039) | 0; b = (((n << 21) | (n >>> 11)) + c) | 0;
  n = (a + (c ^ (b | ~d)) + x12 + 0x655b59c3) | 0; a = (((n << 6) | (n >>> 26)) + b) | 0;
  n = (d + (b ^ (a | ~c)) + x3 + 0x8f0ccc92) | 0; d = (((n << 10) | (n >>> 22)) + a) | 0;
  n = (c + (a ^ (d | ~b)) + x10 + 0xffeff47d) | 0; c = (((n << 15) | (n >>> 17)) + d) | 0;
  n = (b + (d ^ (c | ~a)) + x1 + 0x85845dd1) | 0; b = (((n << 21) | (n >>> 11)) + c) | 0;
  n = (a + (c ^ (b | ~d)) + x8 + 0x6fa87e4f) | 0; a = (((n << 6) | (n >>> 26)) + b) | 0;
  n = (d + (b ^ (a | ~c)) + x15 + 0xfe2ce6e0) | 0; d = (((n << 10) | (n >>> 22)) + a) | 0;
  n = (c + (a ^ (d | ~b)) + x6 + 0xa3014314) | 0; c = (((n << 15) | (n >>> 17)) + d) | 0;
  n = (b + (d ^ (c | ~a)) + x13 + 0x4e0811a1) | 0; b = (((n << 21) | (n >>> 11)) + c) | 0;
  n = (a + (c ^ (b | ~d)) + x4 + 0xf7537e82) | 0; a = (((n << 6) | (n >>> 26)) + b) | 0;
  n = (d + (b ^ (a | ~c)) + x11 + 0xbd3af235) | 0; d = (((n << 10) | (n >>> 22)) + a) | 0;
  n = (c + (a ^ (d | ~b)) + x2 + 0x2ad7d2bb) | 0; c = (((n << 15) | (n >>> 17)) + d) | 0;
  n = (b + (d ^ (c | ~a)) + x9 + 0xeb86d391) | 0; b = (((n << 21) | (n >>> 11)) + c) | 0;
  h[0] = (h[0] + a) | 0;
  h[1] = (h[1] + b) | 0;
  h[2] = (h[2] + c) | 0;
  h[3] = (h[3] + d) | 0;
}

const INITIAL = [0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476];

/** md5(seed + text) for many texts: the seed is encoded once and its whole blocks folded once. */
export class SeededMd5 {
  private readonly state = new Int32Array(4);
  /** The state after the seed's whole 64-byte blocks. */
  private readonly seedState = new Int32Array(INITIAL);
  /** The seed's bytes after those blocks, then each text's UTF-8 and padding in turn. */
  private scratch: Buffer;
  private words: Int32Array;
  private readonly tail: number;
  private readonly seedLength: number;

  constructor(seed: string) {
    const bytes = Buffer.from(seed, "utf8");
    const whole = bytes.length - (bytes.length % 64);
    // Buffer.alloc, never the shared pool: the words view needs the buffer to start 4-byte aligned.
    this.scratch = Buffer.alloc(4096);
    this.words = new Int32Array(this.scratch.buffer, this.scratch.byteOffset, 1024);
    for (let at = 0; at < whole; at += 64) {
      bytes.copy(this.scratch, 0, at, at + 64);
      compress(this.seedState, this.words, 0);
    }
    this.tail = bytes.copy(this.scratch, 0, whole);
    this.seedLength = bytes.length;
  }

  /** Writes md5(seed + the UTF-8 of text, as Buffer.from encodes it) into out[at … at + 16). */
  digest(text: string, out: Uint8Array, at: number): void {
    // Room for the text at 3 bytes a UTF-16 unit at most, and two blocks of padding.
    if (this.tail + text.length * 3 + 128 > this.scratch.length) this.grow(this.tail + text.length * 3 + 128);
    this.finish(this.scratch.write(text, this.tail, "utf8"), out, at);
  }

  /** Writes md5(seed + bytes[start … end)) into out[at … at + 16): a text held as its UTF-8 (line-batch.ts). */
  digestBytes(bytes: Uint8Array, start: number, end: number, out: Uint8Array, at: number): void {
    const n = end - start;
    if (this.tail + n + 128 > this.scratch.length) this.grow(this.tail + n + 128);
    const { scratch, tail } = this;
    // Short texts by hand: a subarray and a native copy cost more than a few dozen bytes.
    if (n <= 48) for (let k = 0; k < n; k++) scratch[tail + k] = bytes[start + k];
    else scratch.set(bytes.subarray(start, end), tail);
    this.finish(n, out, at);
  }

  /** The digest of the seed and the `written` bytes after its tail, into out[at … at + 16). */
  private finish(written: number, out: Uint8Array, at: number): void {
    const { state: h, scratch, words } = this;
    let end = this.tail + written;
    h.set(this.seedState);
    // Padding: 0x80, zeros up to 8 bytes before a block's end, then the length in bits as a 64-bit
    // little-endian number.
    scratch[end++] = 0x80;
    const blocks = Math.ceil((end + 8) / 64);
    // At most 63 bytes: a loop costs less than fill()'s checks.
    for (let z = end; z < blocks * 64 - 8; z++) scratch[z] = 0;
    const bits = (this.seedLength + written) * 8;
    words[blocks * 16 - 2] = bits | 0;
    words[blocks * 16 - 1] = Math.floor(bits / 0x100000000);
    for (let b = 0; b < blocks; b++) compress(h, words, b * 16);
    for (let w = 0; w < 4; w++) {
      const v = h[w];
      out[at++] = v & 0xff;
      out[at++] = (v >>> 8) & 0xff;
      out[at++] = (v >>> 16) & 0xff;
      out[at++] = v >>> 24;
    }
    // The seed's tail is still in place: only bytes after it were written.
  }

  /** A larger scratch for a long text, the seed's tail copied over. */
  private grow(size: number): void {
    const next = Buffer.alloc(Math.ceil(size / 64) * 64);
    this.scratch.copy(next, 0, 0, this.tail);
    this.scratch = next;
    this.words = new Int32Array(next.buffer, next.byteOffset, next.length / 4);
  }
}

// Its map outlives the batches (keep-shape.ts).
keepShape(new SeededMd5(""));
