// Environment and V8 flags of the worker process (scripts/worker.ts) that only its start can set:
// package.json's "worker" script sets them (a test holds it to these lists) and the bench starts its
// workers with them, as `npm run worker` does.
//
// glibc's malloc raises its mmap threshold, and with it its trim threshold, each time a large block
// is freed (up to 32 and 64 MB), so memory freed by V8's compiler threads and by Buffers stayed in
// the per-thread arenas: an idle worker held 212–290 MiB, ~100 MiB of it in those arenas. Fixed
// thresholds give it back: idle 201–213 MiB, a million-row sync's peak 20–35 MiB lower, the same CPU
// (bench/README.md, 2026-11-30 (r)). Ignored by other C libraries.
export const WORKER_PROCESS_ENV: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: "131072",
  MALLOC_TRIM_THRESHOLD_: "131072",
};

// V8 counts the ArrayBuffers allocated since its last full collection against the old generation's
// limit, which it sets at only ~1.2x the live heap. A sync's socket reads and COPY inputs allocate
// ~300 MB of them a million rows, so V8 marked the whole heap every ~250 ms of a full sync: ~13
// collections whose concurrent marking took ~0.9 s of the worker's helper threads. With a first limit
// of 128 MB it does not mark before lib/engine/memory.ts collects between batches (the heap's own
// bound, ~64-100 MB): the worker's CPU 2.8 -> 1.9 s a million-row full sync, its peak RSS ~20-30 MiB
// higher (bench/README.md (v)). Read at the process's start only: v8.setFlagsFromString later changes
// nothing.
export const WORKER_NODE_FLAGS: readonly string[] = ["--initial-old-space-size=128"];
