// What every connection specification shares. The reference console renders the forms with rjsf
// and validates them with ajv's default (draft-07) class, which refuses a schema that names a draft
// it does not know; so the specifications are draft-07, and ours are checked with the same draft.

/** The `$schema` of every connection specification. */
export const JSON_SCHEMA_DRAFT = "http://json-schema.org/draft-07/schema#";

/**
 * Keywords of ours in the specifications, unknown to JSON Schema: ajv in strict mode must be told
 * about them. `secret` marks what we mask and encrypt; `multiwoven_secret` is the reference's
 * marker (its console shows such a field as a password input), set beside every string `secret`
 * and, for a secret object of strings (headers), on its values; the rest are hints for our form.
 */
export const SPEC_KEYWORDS = ["secret", "multiwoven_secret", "order", "multiline", "placeholder", "group"] as const;

/** The port of a database server's connection specification, with the server's usual port. */
export function serverPortField(usual: number, order: number) {
  return {
    type: ["integer", "string"],
    title: "Port",
    description: `TCP port of the server, usually ${usual}.`,
    pattern: "^[0-9]{1,5}$",
    minimum: 1,
    maximum: 65535,
    default: usual,
    order,
  };
}

/** The two timeouts every SQL connector takes, last in its form (orders 6 and 7). */
export const SQL_TIMEOUT_FIELDS = {
  connect_timeout: {
    type: "integer",
    title: "Connect timeout (seconds)",
    description: "How long to wait for a connection before giving up.",
    minimum: 1,
    maximum: 300,
    default: 10,
    order: 6,
  },
  query_timeout: {
    type: "integer",
    title: "Query timeout (seconds)",
    description: "Longest a single statement (or one batch of a read) may run.",
    minimum: 1,
    maximum: 86400,
    default: 60,
    order: 7,
  },
};
