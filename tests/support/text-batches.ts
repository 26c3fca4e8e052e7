// Checks of the text readers' batches (ReadOptions batchSize and batchChars), for vitest tests only.
import { expect } from "vitest";

/**
 * The sizes a text read's batches must have (ReadOptions batchSize and batchChars): a batch ends at
 * its `most.lines`-th line, or at the first line that brings its text to `most.chars` characters or
 * more; the last holds what is left.
 */
function textBatchSizes(lines: readonly string[], most: { lines: number; chars: number }): number[] {
  const sizes: number[] = [];
  let size = 0;
  let held = 0;
  for (const line of lines) {
    size++;
    held += line.length;
    if (size === most.lines || held >= most.chars) {
      sizes.push(size);
      size = 0;
      held = 0;
    }
  }
  if (size > 0) sizes.push(size);
  return sizes;
}

/**
 * Checks a text read (ReadOptions batchSize most.lines, batchChars most.chars) of rows whose first
 * field is 1 to `count` in order: every line once and in order, and each batch ended where
 * textBatchSizes says, some by their line count and some by their text.
 */
export async function expectTextBatches(read: AsyncIterable<Iterable<string>>, count: number, most: { lines: number; chars: number }): Promise<void> {
  const batches: string[][] = [];
  for await (const batch of read) batches.push([...batch]);
  const lines = batches.flat();
  expect(lines.map((l) => Number(l.split("\t")[0]))).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  const sizes = batches.map((b) => b.length);
  expect(sizes).toEqual(textBatchSizes(lines, most));
  expect(sizes.slice(0, -1)).toContain(most.lines);
  expect(sizes.slice(0, -1).some((n) => n < most.lines)).toBe(true);
}
