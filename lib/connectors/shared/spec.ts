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
