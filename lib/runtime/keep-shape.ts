// V8 gives the objects of a class a hidden class (a "map") and optimizes the functions that use them
// for it. Once the last object of a map is garbage, the next full collection frees the map and
// throws away every optimized function that checked for it ("weak objects" in `--log-deopt`). A
// worker holds no batch's keys, md5 state or COPY input between two batches, so every batch ran
// those functions unoptimized and compiled them again: ~200 deoptimizations and ~1 s of compiler
// CPU in a million-row sync (bench/README.md, 2026-11-30). An object of each such class kept here
// for the life of the process keeps its map.
const kept: object[] = [];

/** Keeps `example`, built as the class's other objects are (same fields, same kinds of values), for good. */
export function keepShape<T extends object>(example: T): T {
  kept.push(example);
  return example;
}
