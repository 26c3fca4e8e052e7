// JSON:API-like resource objects: {id: string, type, attributes}. Serializers list their fields
// explicitly so a new column never leaks into the API by accident. Each serializer's answer has a
// zod schema in the `*.schema.ts` file next to it (free of server imports, so the API contract and
// the OpenAPI document can load it); the serializer's return type is that schema's type, so the two
// cannot drift apart without the type check failing.
import { z } from "zod";

export interface Resource<A, T extends string = string> {
  id: string;
  type: T;
  attributes: A;
}

export const resource = <A, T extends string>(id: number | bigint | string, type: T, attributes: A): Resource<A, T> => ({
  id: String(id),
  type,
  attributes,
});

// The last instant formatted: lists repeat one often (a page of records shares its block's time).
let lastTime = NaN;
let lastIso = "";

/** ISO 8601 UTC with milliseconds, or null. */
export function iso(d: Date): string;
export function iso(d: Date | null | undefined): string | null;
export function iso(d: Date | null | undefined): string | null {
  if (!d) return null;
  const time = d.getTime();
  if (time !== lastTime) {
    // Throws for an invalid Date (NaN never equals lastTime), as toISOString does.
    lastIso = d.toISOString();
    lastTime = time;
  }
  return lastIso;
}

/** The schema of `iso(date)`. */
export const dateTime = () => z.iso.datetime();

/** The schema of `resource(id, type, attributes)`. */
export const resourceSchema = <T extends string, A extends z.ZodType>(type: T, attributes: A) =>
  z.strictObject({ id: z.string().describe("The id, as a string of digits."), type: z.literal(type), attributes });
