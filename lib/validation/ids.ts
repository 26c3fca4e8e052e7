// Ids in query strings. Database ids are PostgreSQL `integer` (at most 2147483647) or, for sync
// records, `bigint`: a larger value matches nothing, so it is refused here as a 400 rather than
// reaching the database as an out-of-range parameter (which PostgreSQL rejects with an error).
import { z } from "zod";

export const MAX_INT_ID = 2_147_483_647;
export const MAX_BIGINT_ID = BigInt("9223372036854775807");

/** A positive integer id in a query parameter (`?model_id=12`). */
export const queryIntId = (message = "must be a positive integer id") =>
  z
    .string()
    .regex(/^\d{1,10}$/, message)
    .transform(Number)
    .refine((n) => n >= 1 && n <= MAX_INT_ID, message);

/** A positive bigint id in a query parameter (sync records). */
export const queryBigIntId = (message = "must be a record id (digits)") =>
  z
    .string()
    .regex(/^\d{1,19}$/, message)
    .transform((v) => BigInt(v))
    .refine((n) => n >= BigInt(1) && n <= MAX_BIGINT_ID, message);
