// The one id schema, for ids in request bodies, path segments and query strings alike. Database
// ids are PostgreSQL `integer` (at most 2147483647) or, for sync records, `bigint`. Bodies may carry
// an id as a number or as a string of digits (the reference console sends `"connector_id": "3"`);
// either becomes a number. Anything else (other strings, 0, negatives, fractions, values past the
// column's range) is refused with a sentence that shows what came, rather than reaching the
// database as an out-of-range parameter (which PostgreSQL rejects with an error).
import { z } from "zod";
import { describeValue } from "./messages";

export const MAX_INT_ID = 2_147_483_647;
export const MAX_BIGINT_ID = BigInt("9223372036854775807");

/** Strings of digits become numbers; longer ones than any id stay strings and are refused below. */
const DIGITS = /^\d{1,15}$/;

const idMessage = (issue: { code?: string; input?: unknown; path?: PropertyKey[] }, what: string): string => {
  if (issue.input === undefined) return `is required (${what})`;
  const got = `(got ${describeValue(issue.input, issue.path)})`;
  if (typeof issue.input === "string" && /^\d+$/.test(issue.input)) return `must be ${what} of at most ${MAX_INT_ID} ${got}`;
  if (issue.code === "too_small") return `must be ${what} of 1 or more ${got}`;
  if (issue.code === "too_big") return `must be ${what} of at most ${MAX_INT_ID} ${got}`;
  return `must be ${what} ${got}`;
};

/**
 * A positive integer id: a number, or a string of digits (body, path or query). `what` names it in
 * messages, e.g. "a role id"; the description feeds the OpenAPI document.
 */
export function intId(description?: string, what = "an integer id") {
  const error = (issue: { code?: string; input?: unknown; path?: PropertyKey[] }) => idMessage(issue, what);
  const schema = z.preprocess(
    // Typed as taking a number, so forms and clients built on these schemas send numbers; a string
    // of digits is still accepted at run time.
    (value: number): unknown => {
      const v: unknown = value;
      return typeof v === "string" && DIGITS.test(v) ? Number(v) : v;
    },
    z.number({ error }).int({ error }).min(1, { error }).max(MAX_INT_ID, { error }),
  );
  return description ? schema.describe(`${description} An integer; a string of digits is accepted too.`) : schema;
}

/**
 * A console form's id field: it starts without a value (null) until the person chooses one, and a
 * form submitted without one fails with `message` ("Choose a role").
 */
export function chosenId(id: ReturnType<typeof intId>, message: string) {
  return id.nullable().transform((value, ctx) => {
    if (value !== null) return value;
    ctx.addIssue({ code: "custom", message });
    return z.NEVER;
  });
}

/** A path id: one that is not an integer is a 400 (an unknown one, later, a 404). */
export const idParam = intId();

/** A positive integer id in a query parameter (`?model_id=12`). */
export const queryIntId = (what?: string) => intId(undefined, what);

/** A positive bigint id in a query parameter (sync records). */
export const queryBigIntId = (message = "must be a record id (digits)") =>
  z
    .string()
    .regex(/^\d{1,19}$/, message)
    .transform((v) => BigInt(v))
    .refine((n) => n >= BigInt(1) && n <= MAX_BIGINT_ID, message);
