// Tasks of one key in this process run one after another, in the order they were queued; a failed
// task does not stop the next. Keys are dropped once their last task settles.

const queues = new Map<string, Promise<unknown>>();

/** Runs `task` after every earlier task of `key` in this process has settled. */
export function oneAtATime<T>(key: string, task: () => Promise<T>): Promise<T> {
  const run = (queues.get(key) ?? Promise.resolve()).then(task, task);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return run;
}
