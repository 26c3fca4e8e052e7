// Following a vendor's asynchronous job (an import that answers "accepted" and reports later):
// poll with growing pauses until it is done, the time allowed runs out, or the run stops.

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

export interface PollOptions {
  /** Longest time to follow the job; then the last state is returned as it is. */
  timeoutMs: number;
  signal?: AbortSignal;
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/** Calls `read` until `done` says so; the last state read, with `finished` false when time ran out or the run stopped. */
export async function pollJob<T>(read: () => Promise<T>, done: (state: T) => boolean, options: PollOptions): Promise<{ state: T; finished: boolean }> {
  const deadline = Date.now() + options.timeoutMs;
  let delay = options.firstDelayMs ?? 250;
  for (;;) {
    const state = await read();
    if (done(state)) return { state, finished: true };
    if (options.signal?.aborted || Date.now() + delay > deadline) return { state, finished: false };
    await pause(delay, options.signal);
    delay = Math.min(delay * 2, options.maxDelayMs ?? 5000);
  }
}
