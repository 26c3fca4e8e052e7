// The Content-Security-Policy of every response. Pages get a fresh nonce per request (set by
// proxy.ts; Next reads it from the request's CSP header and puts it on its own scripts), so an
// injected <script> without that nonce does not run: no 'unsafe-inline' for scripts. Everything
// that is not a page (API JSON, static files) runs no script at all.
// No imports: next.config.ts loads this file too.

// React's development build evaluates code for its error overlays; production needs no eval.
const devEval = process.env.NODE_ENV === "production" ? "" : " 'unsafe-eval'";

// Inline style attributes (React `style={{…}}`) cannot carry a nonce; styles cannot run code.
const common =
  "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

/** The policy of an HTML page rendered with `nonce` on its scripts. */
export function pagePolicy(nonce: string): string {
  return `default-src 'self'; script-src 'self' 'nonce-${nonce}'${devEval}; ${common}`;
}

/** The policy of every response that is not a page. */
export const NON_PAGE_POLICY = `default-src 'self'; script-src 'none'; ${common}`;

/** 128 random bits, base64: a nonce nobody can guess, new for every page. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}
