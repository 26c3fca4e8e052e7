// Meta's customer-list keys and how each value is normalised, then SHA-256 hashed, before it leaves
// (Marketing API, "Customer List Custom Audiences": hashing and normalisation). Hashed keys never
// travel in clear: a value that cannot be normalised fails its record here, unsent. A value that
// already is a SHA-256 hex digest is taken as hashed (Meta asks not to hash twice).
import { createHash } from "node:crypto";
import { ConnectorError } from "../shared/errors";

/** The keys of a customer-list `schema`, in the order a request's schema lists them. */
export const AUDIENCE_KEYS = ["EMAIL", "PHONE", "GEN", "DOBY", "DOBM", "DOBD", "LN", "FN", "FI", "CT", "ST", "ZIP", "COUNTRY", "MADID", "EXTERN_ID", "PAGEUID", "LOOKALIKE_VALUE"] as const;
export type AudienceKey = (typeof AUDIENCE_KEYS)[number];

/** Keys that identify a person alone; the others (a country, a birth year) only narrow a match. */
const MAIN_KEYS: readonly AudienceKey[] = ["EMAIL", "PHONE", "MADID", "EXTERN_ID", "PAGEUID"];

/** Whether a person's keys can be matched: one main identifier, or a first and a last name. */
export function identifiable(keys: readonly string[]): boolean {
  return MAIN_KEYS.some((k) => keys.includes(k)) || (keys.includes("FN") && keys.includes("LN"));
}

/** Keys Meta wants hashed; the rest (device, page-scoped and external ids, the value) go as they are. */
export const HASHED_KEYS: ReadonlySet<AudienceKey> = new Set(["EMAIL", "PHONE", "GEN", "DOBY", "DOBM", "DOBD", "LN", "FN", "FI", "CT", "ST", "ZIP", "COUNTRY"]);

const SHA256_HEX = /^[0-9a-f]{64}$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** Lowercase letters only (any script): names, cities, states. */
const letters = (text: string) => text.normalize("NFC").toLowerCase().replace(/[^\p{L}\p{M}]/gu, "");

function invalid(key: string, why: string): never {
  throw new ConnectorError(`The ${key} value ${why}; the record was not sent.`);
}

function twoDigits(key: string, text: string, max: number): string {
  const n = /^\d{1,2}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= max)) invalid(key, `is not a number from 01 to ${String(max).padStart(2, "0")}`);
  return String(n).padStart(2, "0");
}

/** The normalised form of a hashed key's value (before hashing); throws ConnectorError when it has none. */
export function normalise(key: AudienceKey, raw: string): string {
  const text = raw.trim();
  switch (key) {
    case "EMAIL": {
      const email = text.toLowerCase();
      if (!EMAIL.test(email)) invalid(key, "is not an e-mail address");
      return email;
    }
    case "PHONE": {
      // Digits only, with the country code; a leading 00 or + (international prefix) is dropped.
      const digits = text.replace(/\D/g, "").replace(/^0+/, "");
      if (digits.length < 7 || digits.length > 15) invalid(key, "is not a phone number with its country code (7 to 15 digits)");
      return digits;
    }
    case "GEN": {
      const g = text.toLowerCase();
      if (g === "m" || g === "male") return "m";
      if (g === "f" || g === "female") return "f";
      return invalid(key, "is neither m nor f");
    }
    case "DOBY":
      if (!/^\d{4}$/.test(text)) invalid(key, "is not a four-digit year");
      return text;
    case "DOBM":
      return twoDigits(key, text, 12);
    case "DOBD":
      return twoDigits(key, text, 31);
    case "FN":
    case "LN":
    case "CT":
    case "ST": {
      const value = letters(text);
      if (value === "") invalid(key, "has no letters");
      return value;
    }
    case "FI": {
      const value = letters(text).slice(0, 1);
      if (value === "") invalid(key, "has no letter");
      return value;
    }
    case "ZIP": {
      const zip = text.toLowerCase().replace(/\s+/g, "");
      // A US ZIP+4 is matched on its first five digits.
      return /^\d{5}-?\d{4}$/.test(zip) ? zip.slice(0, 5) : zip;
    }
    case "COUNTRY": {
      const country = text.toLowerCase();
      if (!/^[a-z]{2}$/.test(country)) invalid(key, "is not a two-letter ISO 3166-1 country code");
      return country;
    }
    default:
      return text;
  }
}

/**
 * The value as it is sent for `key`: hashed keys normalised and hashed (or kept when already a
 * digest), MADID lowercased, the value a number, other ids trimmed. Undefined: nothing to send.
 */
export function audienceValue(key: AudienceKey, value: unknown): string | number | undefined {
  if (value === null || value === undefined) return undefined;
  if (key === "LOOKALIKE_VALUE") {
    const n = typeof value === "number" ? value : Number(String(value).trim());
    if (String(value).trim() === "" || !Number.isFinite(n) || n < 0) invalid(key, "is not a number of zero or more");
    return n;
  }
  if (typeof value === "object") invalid(key, "is not text");
  const text = String(value).trim();
  if (text === "") return undefined;
  if (HASHED_KEYS.has(key)) return SHA256_HEX.test(text.toLowerCase()) ? text.toLowerCase() : sha256(normalise(key, text));
  return key === "MADID" ? text.toLowerCase() : text;
}
