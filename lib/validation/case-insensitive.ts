// Enumerations matched whatever their case. The reference console sends `?type=Source` where the
// API documents `source`; the value comes out lower-cased, so nothing downstream sees the variant.
import { z } from "zod";

export function caseInsensitiveEnum<const T extends readonly string[]>(values: T) {
  return z.preprocess(
    (v) => (typeof v === "string" ? v.toLowerCase() : v),
    z.enum(values, { error: `must be one of: ${values.join(", ")} (any case)` }),
  );
}
