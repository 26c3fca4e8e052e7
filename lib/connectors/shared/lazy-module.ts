// Client libraries loaded on first use: every process imports the registry, so a library imported at
// the top of a connector sits in the memory of every worker, used or not (together the broker and
// DuckDB clients added ~70 MiB to the idle worker; bench/README.md).

export interface LazyModule<T> {
  /** The module, loaded on the first call. */
  load(): Promise<T>;
  /** The module when a load has finished, else undefined. */
  loaded(): T | undefined;
}

export function lazyModule<T>(importer: () => Promise<T>): LazyModule<T> {
  let value: T | undefined;
  let pending: Promise<T> | undefined;
  return {
    load: () =>
      (pending ??= importer().then(
        (m) => (value = m),
        (err: unknown) => {
          pending = undefined;
          throw err;
        },
      )),
    loaded: () => value,
  };
}
