// Entry of the worker thread that fingerprints a batch's lines (fingerprints-off-thread.ts): the texts
// (or their bytes) and a shared buffer in, each md5(seed + text) written into the buffer, the
// request's id out. Bundled (lib/runtime/script-bundle.ts), so it runs without a TypeScript loader;
// md5.ts is its only import.
import { parentPort } from "node:worker_threads";
import { SeededMd5 } from "./md5";

/**
 * Texts held as UTF-8 (line-batch.ts's LineBytes, shared or cloned): text k is
 * chunks[chunkOf[i]][starts[i], ends[i] - 1) for i = kept[k]. A null chunkOf: every line is in
 * chunks[0]; a null kept: every line, in order. (Arrays not in shared memory are copied to post.)
 */
export interface HeldTexts {
  chunks: Uint8Array[];
  chunkOf: Int32Array | null;
  starts: Int32Array;
  ends: Int32Array;
  kept: Int32Array | null;
  /** Of a packed batch (line-batch.ts): each line's record row ("c", the line, a newline) written here too, side by side in line order. */
  rows?: SharedArrayBuffer;
}

export interface Md5Request {
  id: number;
  seed: string;
  texts: string[] | HeldTexts;
  /** 16 bytes a text, in order. */
  out: SharedArrayBuffer;
}

export type Md5Answer = { id: number; ok: true } | { id: number; ok: false; message: string };

// Runs use one seed each, so consecutive batches mostly share it.
let last: { seed: string; md5: SeededMd5 } | null = null;
/** A text longer than this grew the hasher's buffer (~3 bytes a character): a new hasher for the next batch. */
const LONG_TEXT = 64 * 1024;

/** Every line's record row, side by side: "c", then the line and its newline as the message holds them. */
function writeRecordRows({ chunks, chunkOf, starts, ends }: HeldTexts, rows: Uint8Array): void {
  let at = 0;
  for (let i = 0; i < starts.length; i++) {
    rows[at++] = 0x63; // c
    rows.set(chunks[chunkOf ? chunkOf[i] : 0].subarray(starts[i], ends[i]), at);
    at += ends[i] - starts[i];
  }
}

parentPort?.on("message", (request: Md5Request) => {
  let answer: Md5Answer;
  try {
    if (last?.seed !== request.seed) last = { seed: request.seed, md5: new SeededMd5(request.seed) };
    const out = new Uint8Array(request.out);
    const { texts } = request;
    let longest = 0;
    if (Array.isArray(texts)) {
      for (let i = 0; i < texts.length; i++) {
        last.md5.digest(texts[i], out, i * 16);
        if (texts[i].length > longest) longest = texts[i].length;
      }
    } else {
      const { chunks, chunkOf, starts, ends, kept } = texts;
      const count = kept ? kept.length : starts.length;
      for (let k = 0; k < count; k++) {
        const i = kept ? kept[k] : k;
        last.md5.digestBytes(chunks[chunkOf ? chunkOf[i] : 0], starts[i], ends[i] - 1, out, k * 16);
        if (ends[i] - starts[i] > longest) longest = ends[i] - starts[i];
      }
      if (texts.rows) writeRecordRows(texts, new Uint8Array(texts.rows));
    }
    if (longest > LONG_TEXT) last = null;
    answer = { id: request.id, ok: true };
  } catch (err) {
    answer = { id: request.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(answer);
});
