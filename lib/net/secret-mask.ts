// What a log or an answer shows in place of a secret: a masked header (http.ts) or a connector's
// secret field (lib/connectors/shared/secrets.ts). A leaf: the DuckDB child bundles secrets.ts and
// must not load the HTTP client with it.
export const SECRET_MASK = "*************";
