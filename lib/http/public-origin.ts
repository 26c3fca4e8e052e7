// The origin clients reach this server at, for the duration of one API request. Serializers build
// absolute URLs with it (connector icons): the reference console runs on another origin, where a
// relative `/icons/x.svg` would point at itself. A request-scoped store spares every serializer
// and route an extra argument; outside a request the paths stay relative.
import { AsyncLocalStorage } from "node:async_hooks";

const store = new AsyncLocalStorage<string>();

/** Runs `fn` with `origin` (e.g. `https://sync.example.com`) as the public origin. */
export function withPublicOrigin<T>(origin: string, fn: () => T): T {
  return store.run(origin, fn);
}

// URLs made for the last origin seen, by path: a list repeats a few icons on every item.
const MAX_REMEMBERED = 64;
let rememberedOrigin: string | undefined;
const remembered = new Map<string, string>();

/** `path` (starting with `/`) as an absolute URL on the public origin; unchanged without one, or when already absolute. */
export function absoluteUrl(path: string): string {
  const origin = store.getStore();
  if (!origin || !path.startsWith("/") || path.startsWith("//")) return path;
  if (origin !== rememberedOrigin) {
    remembered.clear();
    rememberedOrigin = origin;
  }
  let url = remembered.get(path);
  if (url === undefined) {
    url = `${origin}${path}`;
    if (remembered.size < MAX_REMEMBERED) remembered.set(path, url);
  }
  return url;
}
