// A batch's fingerprints computed on a thread of their own. md5 was a sixth of the worker's main
// thread in a million-row full sync (bench/README.md, 2026-12-01), the thread every batch's reading,
// sending and recording waits for, while the machine's other core sat partly idle. Posting the lines
// costs a tenth of hashing them; the digests come back through a shared buffer, no copy. A first sync
// needs them only when it records the batch (its state blocks), so the batch is sent meanwhile; a
// re-run's diff waits for them, but its other batches in flight keep the main thread busy.
import "server-only";
import { Worker } from "node:worker_threads";
import { logger } from "@/lib/logger";
import { bundledScript } from "@/lib/runtime/script-bundle";
import { DIGEST, Digests, fingerprintAll, fingerprintInto, seedHashable } from "./fingerprints";
import type { LineBatch, LineBytes } from "@/lib/db/pg-wire/line-batch";
import { sharedBuffers } from "@/lib/db/pg-wire/shared-buffers";
import { SeededMd5 } from "./md5";
import type { Md5Answer, Md5Request } from "./md5-thread";

/** Fewer texts are hashed in place: a thread's round trip costs more than it saves them. */
const MIN_TEXTS = 256;
/**
 * More text is hashed in place: a batch of lines bound for a text destination ends at 8 MiB of text
 * (extract.ts), but mapped lines come in batches of rows of any width, and a clone past the thread's
 * heap would end it.
 */
const MAX_CHARS = 32 * 1024 * 1024;
/**
 * The thread holds one batch's texts at a time (MAX_CHARS at most), garbage as soon as they are
 * hashed: a small young generation keeps its memory small.
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 128 };

type Waiter = { resolve: () => void; reject: (err: Error) => void };

class Md5Thread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiter>();
  private nextId = 1;
  /** False once the thread failed or exited: its requests were refused, the next batch starts another. */
  alive = true;
  /** Whether it ever answered: one that fails first is not started again (unavailable). */
  answeredOnce = false;

  constructor() {
    this.worker = new Worker(bundledScript("lib/engine/md5-thread.ts", "md5-thread"), {
      resourceLimits: THREAD_LIMITS,
    });
    // Idle, it must not keep the process alive (held again while it has work).
    this.worker.unref();
    this.worker.on("message", (answer: Md5Answer) => this.answered(answer));
    this.worker.on("error", (err: Error) => this.end(err));
    this.worker.on("exit", (code) => this.end(new Error(`The fingerprint thread stopped (exit code ${code}).`)));
  }

  hash(request: Omit<Md5Request, "id">): Promise<void> {
    const id = this.nextId++;
    const done = new Promise<void>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    if (this.waiting.size === 1) this.worker.ref();
    try {
      this.worker.postMessage({ ...request, id } satisfies Md5Request);
    } catch (err) {
      // Not posted (the texts could not be cloned): no answer will come, so nothing may wait for one.
      this.answered({ id, ok: false, message: err instanceof Error ? err.message : String(err) });
    }
    return done;
  }

  private answered(answer: Md5Answer): void {
    const waiter = this.waiting.get(answer.id);
    if (!waiter) return;
    this.waiting.delete(answer.id);
    if (answer.ok) this.answeredOnce = true;
    if (this.waiting.size === 0) this.worker.unref();
    if (answer.ok) waiter.resolve();
    else waiter.reject(new Error(`Fingerprinting a batch failed: ${answer.message}`));
  }

  private end(err: Error): void {
    if (!this.alive) return;
    this.alive = false;
    for (const waiter of this.waiting.values()) waiter.reject(err);
    this.waiting.clear();
    void this.worker.terminate();
  }
}

let thread: Md5Thread | null = null;
/** Set once a thread could not start (no bundler, no threads): every batch is hashed in place. */
let unavailable = false;

function md5Thread(): Md5Thread | null {
  if (unavailable) return null;
  if (thread?.alive) return thread;
  if (thread && !thread.answeredOnce) {
    unavailable = true;
    return null;
  }
  try {
    thread = new Md5Thread();
    return thread;
  } catch (err) {
    unavailable = true;
    logger.warn({ err }, "no fingerprint thread: batches are fingerprinted on the main thread");
    return null;
  }
}

/**
 * fingerprintAll's digests, computed on the fingerprint thread for a batch worth it: read none before
 * `ready` resolves. If the thread fails, this thread computes them (`ready` rejects only if that
 * fails too, as fingerprintAll would have thrown).
 */
export function fingerprintOffThread(seed: string, texts: string[]): Digests {
  const worker = texts.length >= MIN_TEXTS && seedHashable(seed) && charsOf(texts) <= MAX_CHARS ? md5Thread() : null;
  if (!worker) return fingerprintAll(seed, texts);
  const bytes = sharedBuffers.take(texts.length * DIGEST);
  const ready = worker.hash({ seed, texts, out: bytes.buffer as SharedArrayBuffer }).catch((err: unknown) => {
    logger.warn({ err }, "the fingerprint thread failed: this batch is fingerprinted on the main thread");
    // The thread may not have stopped writing: the buffer is never reused.
    sharedBuffers.forget(bytes);
    fingerprintInto(seed, texts, bytes);
  });
  // A batch its run dropped (the run failed) never awaits it: a rejection must not end the process.
  ready.catch(() => undefined);
  return new Digests(bytes, texts.length, ready);
}

/**
 * fingerprintOffThread of the lines at `kept` of a batch: one held as bytes is hashed from them (the
 * UTF-8 of its lines), which the thread reads where they are (a packed batch's one SharedArrayBuffer;
 * other chunks would be cloned). With `recordRows` (a first sync, which sends every line), the thread
 * also writes a packed batch's record rows: a re-run sends a few lines, whose rows are copied alone.
 */
export function fingerprintLines(seed: string, lines: LineBatch, kept: Int32Array, recordRows = false): Digests {
  const held = lines.bytes;
  if (!held) return fingerprintOffThread(seed, Array.from(kept, (i) => lines.line(i)));
  const worker = kept.length >= MIN_TEXTS && seedHashable(seed) && bytesOf(held) <= MAX_CHARS ? md5Thread() : null;
  if (!worker) return fingerprintHeld(seed, lines, kept, Buffer.allocUnsafe(kept.length * DIGEST));
  const bytes = sharedBuffers.take(kept.length * DIGEST);
  const { chunks, chunkOf, starts, ends } = held;
  // The thread also writes the batch's record rows, which the records then copy a run at a time.
  const rows = recordRows && lines.packed ? sharedBuffers.take(lines.recordRowsSize()) : undefined;
  // A packed batch's index arrays are in shared memory (LineBatch.join): posted, they are not copied.
  // Its lines are all in one chunk, and most batches keep every line: those two arrays go as null.
  const request = {
    chunks: chunks as Buffer[],
    chunkOf: lines.packed ? null : chunkOf,
    starts,
    ends,
    kept: kept.length === lines.length ? null : kept,
    rows: rows?.buffer as SharedArrayBuffer | undefined,
  };
  const ready = worker
    .hash({ seed, texts: request, out: bytes.buffer as SharedArrayBuffer })
    .then(() => {
      // Only once written: a batch whose thread failed copies each record row from its line instead.
      if (rows) lines.recordRows = rows;
    })
    .catch((err: unknown) => {
      logger.warn({ err }, "the fingerprint thread failed: this batch is fingerprinted on the main thread");
      // The thread may not have stopped writing, or reading the lines: none of its buffers is reused.
      sharedBuffers.forget(bytes);
      if (rows) sharedBuffers.forget(rows);
      lines.pin();
      fingerprintHeld(seed, lines, kept, bytes);
    });
  ready.catch(() => undefined);
  return new Digests(bytes, kept.length, ready);
}

/** fingerprintLines' digests computed here, into `out`. */
function fingerprintHeld(seed: string, lines: LineBatch, kept: Int32Array, out: Buffer): Digests {
  const held = lines.bytes as LineBytes;
  if (!seedHashable(seed)) fingerprintInto(seed, Array.from(kept, (i) => lines.line(i)), out);
  else {
    const md5 = new SeededMd5(seed);
    for (let k = 0; k < kept.length; k++) {
      const i = kept[k];
      md5.digestBytes(held.chunks[held.chunkOf[i]], held.starts[i], held.ends[i] - 1, out, k * DIGEST);
    }
  }
  return new Digests(out, kept.length);
}

/** Bytes of a batch's chunks (what a request clones). */
function bytesOf(held: LineBytes): number {
  let bytes = 0;
  for (const c of held.chunks) bytes += c.length;
  return bytes;
}

function charsOf(texts: readonly string[]): number {
  let chars = 0;
  for (let i = 0; i < texts.length; i++) chars += texts[i].length;
  return chars;
}
