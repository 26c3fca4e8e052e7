// Connection pools of a destination, one per distinct connection settings, kept between writes:
// a run writes many batches to the same server, and the engine closes a pool (`close(config)`)
// when it is done with the connector.

/** Anything holding a pool that can be ended. */
export interface PooledEntry {
  pool: { end(): Promise<void> };
}

export class PoolCache<E extends PooledEntry> {
  private readonly entries = new Map<string, Promise<E>>();

  /** The entry for `key`, opened on first use (once, however many callers ask at the same time). */
  get(key: string, open: () => Promise<E>): Promise<E> {
    const existing = this.entries.get(key);
    if (existing) return existing;
    const opening = open();
    this.entries.set(key, opening);
    // A failed open is forgotten, so the next call tries again.
    opening.catch(() => {
      if (this.entries.get(key) === opening) this.entries.delete(key);
    });
    return opening;
  }

  /** Forgets the entry for `key` and ends its pool. */
  async close(key: string): Promise<void> {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    const opened = await entry?.catch(() => undefined);
    await opened?.pool.end();
  }
}
