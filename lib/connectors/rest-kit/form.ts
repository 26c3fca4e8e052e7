// A request body as application/x-www-form-urlencoded with bracketed keys, the encoding of APIs
// that take forms rather than JSON (Stripe): nested objects as `address[city]=…`, arrays as
// `tags[0]=…`, `null` as an empty value (such APIs read it as "clear this field"), numbers held as
// exact text (JsonNumber or its marker) as that text, so no value bends on the way.
import { JsonNumber, markedNumber } from "../shared/values";

function pairs(value: unknown, key: string, out: [string, string][]): void {
  if (value === undefined) return;
  if (value === null) {
    out.push([key, ""]);
  } else if (value instanceof JsonNumber) {
    out.push([key, value.text]);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => pairs(item, `${key}[${i}]`, out));
  } else if (value instanceof Date) {
    out.push([key, value.toISOString()]);
  } else if (typeof value === "object") {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) pairs(v, `${key}[${k}]`, out);
  } else if (typeof value === "string") {
    out.push([key, markedNumber(value) ?? value]);
  } else {
    out.push([key, String(value)]);
  }
}

/** The form pairs of an object body, in its key order. */
export function formPairs(body: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(body)) pairs(value, key, out);
  return out;
}

/** The encoded body (brackets left readable, as such APIs document their keys). */
export function formBody(body: Record<string, unknown>): string {
  return formPairs(body)
    .map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, "[").replace(/%5D/g, "]")}=${encodeURIComponent(v)}`)
    .join("&");
}
