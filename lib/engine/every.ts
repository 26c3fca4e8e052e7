// every(ms, fn): runs fn now and then every `ms`, never two at once (a tick still running when the
// next is due skips that one). stop() ends the loop and waits for a tick in progress.
export interface Periodic {
  stop(): Promise<void>;
}

export function every(ms: number, fn: () => Promise<void>, onError: (err: unknown) => void): Periodic {
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = fn()
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, ms);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
