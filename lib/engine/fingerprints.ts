// A batch's fingerprints (diff.ts: md5 of the sync's seed and the row's text) computed together, the
// 16-byte digests side by side; hex is made only for a row that needs it (sent, or probed). An
// unchanged row is found in the filter by its digest's words, with no string made at all. Per row,
// node:crypto's one-shot hash and its hex string were the largest part of a no-change re-run's
// worker time (bench/README.md, "2026-11-28 (b)").
import "server-only";
import { hash } from "node:crypto";
import { keepShape } from "@/lib/runtime/keep-shape";
import { sharedBuffers } from "@/lib/db/pg-wire/shared-buffers";
import { LITTLE_ENDIAN, SeededMd5 } from "./md5";

/** Fingerprints by position: the digests of a batch, or the hex ones a source computed itself. */
export interface Fingerprints {
  readonly length: number;
  /** The i-th fingerprint as 32 lowercase hex digits (what sync_states stores). */
  hex(i: number): string;
  /** The w-th (0–3) big-endian 32-bit word of the i-th fingerprint, or -1 when it is not 32 hex digits. */
  word(i: number, w: number): number;
}

/** Bytes of a digest. */
export const DIGEST = 16;

/**
 * A fingerprint where it was computed: hex on demand, or its 16 bytes copied with no string made
 * (state-blocks.ts writes a first sync's million fingerprints so; `digestInto` absent: only hex).
 */
export interface DigestSource {
  readonly fingerprint: string;
  digestInto?(buf: Buffer, at: number): void;
}

const DONE: Promise<void> = Promise.resolve();

/** md5 digests side by side. */
export class Digests implements Fingerprints {
  /** The bytes are written: read before, they would be zeros taken for fingerprints. */
  private settled: boolean;
  /** Given back to the shared pool: read now, they would be another batch's. */
  private released = false;

  constructor(
    private readonly bytes: Buffer,
    readonly length: number,
    /** Resolves once the bytes are written (fingerprints-off-thread.ts); read none before. */
    readonly ready: Promise<void> = DONE,
  ) {
    this.settled = ready === DONE;
    // Registered before any reader's await, so it runs first.
    if (!this.settled) {
      ready.then(
        () => (this.settled = true),
        () => undefined,
      );
    }
  }

  /** The bytes, once written. */
  private written(): Buffer {
    if (!this.settled) throw new Error("A batch's fingerprints were read before they were computed.");
    if (this.released) throw new Error("A batch's fingerprints were read after the batch was recorded.");
    return this.bytes;
  }

  /** Gives the bytes back to the shared pool (shared-buffers.ts), if they came from it: once the batch is recorded, and computed. */
  release(): void {
    if (this.released || !this.settled) return;
    this.released = true;
    sharedBuffers.give(this.bytes);
  }

  hex(i: number): string {
    return this.written().toString("hex", i * DIGEST, (i + 1) * DIGEST);
  }

  /** The i-th digest's 16 bytes into `buf` at `at`. */
  copy(i: number, buf: Buffer, at: number): void {
    // By hand: Buffer#copy's native call costs more than 16 bytes.
    const x = this.written();
    for (let b = i * DIGEST, end = b + DIGEST; b < end; b++) buf[at++] = x[b];
  }

  word(i: number, w: number): number {
    const b = i * DIGEST + w * 4;
    const x = this.written();
    return ((x[b] << 24) | (x[b + 1] << 16) | (x[b + 2] << 8) | x[b + 3]) >>> 0;
  }
}

/** Each UTF-16 code unit's hex digit value, or -1. */
const HEX = new Int8Array(65536).fill(-1);
for (let d = 0; d < 16; d++) {
  HEX["0123456789abcdef".charCodeAt(d)] = d;
  HEX["0123456789ABCDEF".charCodeAt(d)] = d;
}

/** Fingerprints already in hex (a source that fingerprints rows itself; tests). */
export class HexFingerprints implements Fingerprints {
  constructor(private readonly texts: readonly string[]) {}

  get length(): number {
    return this.texts.length;
  }

  hex(i: number): string {
    return this.texts[i];
  }

  word(i: number, w: number): number {
    const text = this.texts[i];
    if (text.length !== 32) return -1;
    let value = 0;
    for (let at = w * 8, end = at + 8; at < end; at++) {
      const n = HEX[text.charCodeAt(at)];
      if (n < 0) return -1;
      value = value * 16 + n;
    }
    return value;
  }
}

/** Every fingerprint in hex, in order (the probe's parameter). */
export function hexOf(fingerprints: Fingerprints, positions?: readonly number[]): string[] {
  if (positions) return positions.map((i) => fingerprints.hex(i));
  const out = new Array<string>(fingerprints.length);
  for (let i = 0; i < out.length; i++) out[i] = fingerprints.hex(i);
  return out;
}

/** md5(seed + text) of every text, equal to node:crypto's `hash("md5", seed + text)`. */
export function fingerprintAll(seed: string, texts: readonly string[]): Digests {
  const out = Buffer.allocUnsafe(texts.length * DIGEST);
  fingerprintInto(seed, texts, out);
  return new Digests(out, texts.length);
}

/** fingerprintAll's digests written into `out` (16 bytes a text). */
export function fingerprintInto(seed: string, texts: readonly string[], out: Uint8Array): void {
  const n = texts.length;
  if (seedHashable(seed)) {
    const md5 = new SeededMd5(seed);
    for (let i = 0; i < n; i++) md5.digest(texts[i], out, i * DIGEST);
  } else {
    for (let i = 0; i < n; i++) out.set(hash("md5", seed + texts[i], "buffer"), i * DIGEST);
  }
}

/** Whether md5.ts can hash texts after this seed (else node:crypto hashes them joined). */
export function seedHashable(seed: string): boolean {
  // md5.ts encodes the seed on its own: one ending in half a surrogate pair (never an engine seed,
  // which is hex) could pair with a text's first unit in the joined string.
  const last = seed.charCodeAt(seed.length - 1);
  return LITTLE_ENDIAN && !(last >= 0xd800 && last <= 0xdbff);
}

// Its map outlives the batches (keep-shape.ts).
keepShape(new Digests(Buffer.alloc(0), 0));
