// Small async helpers for bounded-memory streaming.

/** Rejects when `promise` does not settle within `ms`; `onTimeout` tears down whatever is stuck. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("The read was cancelled.");
}

/**
 * Groups an async row stream into arrays of at most `size`, holding one batch at a time. With
 * `idleTimeoutMs`, waiting longer than that for the next row fails with `onIdle()`.
 */
export async function* inBatches<T>(
  rows: AsyncIterable<T>,
  size: number,
  options: { signal?: AbortSignal; idleTimeoutMs?: number; onIdle?: () => Error } = {},
): AsyncGenerator<T[]> {
  const iterator = rows[Symbol.asyncIterator]();
  const next = () =>
    options.idleTimeoutMs
      ? withTimeout(iterator.next(), options.idleTimeoutMs, options.onIdle ?? (() => new Error("The read timed out.")))
      : iterator.next();
  let batch: T[] = [];
  try {
    for (let item = await next(); !item.done; item = await next()) {
      batch.push(item.value);
      if (batch.length >= size) {
        throwIfAborted(options.signal);
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    await iterator.return?.();
  }
}

/** Runs `fn` over `items` with at most `limit` in flight, keeping the input order in the result. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index], index);
    }
  });
  await Promise.all(workers);
  return results;
}
