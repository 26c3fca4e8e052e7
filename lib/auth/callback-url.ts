// Where the console may send someone after signing in: a path on its own origin, nothing else.
// Browsers read `/\host`, `//host` and `/<TAB>/host` as another host, so a prefix check on the raw
// string is not enough; the value is parsed the way the browser will parse it and the origin compared.

/** Where a missing or refused callbackUrl leads. */
export const DEFAULT_AFTER_SIGN_IN = "/dashboard";

// Backslashes (read as `/` in http URLs) and control characters (stripped by URL parsers) are how a
// string that looks like a path turns into another host.
const TRICKY = /[\\\u0000-\u001f\u007f]/;

/**
 * A same-origin path (pathname + search + hash) for any callbackUrl, relative or absolute, or
 * DEFAULT_AFTER_SIGN_IN when it would leave `origin` or could be read as another host.
 */
export function safeCallbackPath(value: unknown, origin: string): string {
  if (typeof value !== "string" || value === "" || TRICKY.test(value)) return DEFAULT_AFTER_SIGN_IN;
  let own: URL;
  let target: URL;
  try {
    own = new URL(origin);
    target = new URL(value, own);
  } catch {
    return DEFAULT_AFTER_SIGN_IN;
  }
  if (target.origin !== own.origin) return DEFAULT_AFTER_SIGN_IN;
  const path = `${target.pathname}${target.search}${target.hash}`;
  // `/.//host` normalises to the path `//host`, which a browser would again read as a host.
  if (!path.startsWith("/") || path.startsWith("//")) return DEFAULT_AFTER_SIGN_IN;
  return path;
}
