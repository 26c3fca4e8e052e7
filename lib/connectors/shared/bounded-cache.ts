// Caches of credentials' tokens and similar per-credential answers: one process serves every
// workspace, and a tenant can mint new credentials (or point a connector at a server of its own),
// so every such map is bounded and every kept token has a sane length.

/** Credentials whose tokens are kept (the oldest goes first). */
export const TOKEN_CACHE_LIMIT = 1000;
/** Longest access token taken; real ones are a few hundred characters, and each is kept in memory. */
export const MAX_TOKEN_LENGTH = 8 * 1024;

/** Sets `key` as the newest entry, dropping the oldest entries past `limit` (insertion order = age). */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, limit = TOKEN_CACHE_LIMIT): void {
  map.delete(key);
  while (map.size >= limit) {
    const oldest = map.keys().next();
    if (oldest.done) break;
    map.delete(oldest.value);
  }
  map.set(key, value);
}
