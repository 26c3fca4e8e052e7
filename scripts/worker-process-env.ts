// Environment of the worker process (scripts/worker.ts) that only its start can set: package.json's
// "worker" script sets it (a test holds it to this list) and the bench starts its workers with it, as
// `npm run worker` does.
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
