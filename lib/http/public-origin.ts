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

/** `path` (starting with `/`) as an absolute URL on the public origin; unchanged without one, or when already absolute. */
export function absoluteUrl(path: string): string {
  const origin = store.getStore();
  return origin && path.startsWith("/") && !path.startsWith("//") ? `${origin}${path}` : path;
}
