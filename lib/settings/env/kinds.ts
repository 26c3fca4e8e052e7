// The kinds of environment variable (whole numbers, flags, text, URLs…): each a zod schema carrying
// what the README shows and errors name. Shared by the groups of variables in this directory.
import { z } from "zod";

/** What the README shows and errors name: the form a value must have, and the default in words. */
export interface VariableMeta {
  form: string;
  /** The default when it is not a plain value (`embedded`, `generated into DATA_DIR`…). */
  unset?: string;
  /** Never echo the value in an error: it may hold a password. */
  sensitive?: boolean;
}

const blankIsUnset = (value: unknown) =>
  typeof value === "string" && value.trim() === "" ? undefined : value;

export function variable<T extends z.ZodType>(schema: T, meta: VariableMeta, description: string) {
  return z.preprocess(blankIsUnset, schema).meta({ ...meta, description });
}

export const integer = (min: number, fallback: number, description: string, unset?: string) =>
  variable(
    z.coerce.number().int().min(min).default(fallback),
    { form: `a whole number ≥ ${min}`, unset },
    description,
  );

/** A whole number with no fixed default: unset, the code derives one (`unset` says how, in words). */
export const optionalInteger = (min: number, description: string, unset: string) =>
  variable(z.coerce.number().int().min(min).optional(), { form: `a whole number ≥ ${min}`, unset }, description);

export const integerUpTo = (min: number, max: number, fallback: number, description: string) =>
  variable(
    z.coerce.number().int().min(min).max(max).default(fallback),
    { form: `a whole number from ${min} to ${max.toLocaleString("en-US")}` },
    description,
  );

export const decimal = (min: number, fallback: number, description: string, exclusive = false) =>
  variable(
    (exclusive ? z.coerce.number().gt(min) : z.coerce.number().min(min)).default(fallback),
    { form: `a number ${exclusive ? ">" : "≥"} ${min}` },
    description,
  );

const TRUE = ["1", "true", "yes", "on"];
const FALSE = ["0", "false", "no", "off"];
export const flag = (fallback: boolean, description: string) =>
  variable(
    z
      .string()
      .trim()
      .toLowerCase()
      .refine((v) => TRUE.includes(v) || FALSE.includes(v))
      .transform((v) => TRUE.includes(v))
      .default(fallback),
    { form: "1 or 0 (also true/false, yes/no, on/off)" },
    description,
  );

export const text = (description: string, unset?: string) =>
  variable(z.string().trim().optional(), { form: "text", unset }, description);

export const textWithDefault = (fallback: string, description: string) =>
  variable(z.string().trim().default(fallback), { form: "text" }, description);

export const urlOf = (protocols: string[], form: string, description: string, unset?: string) =>
  variable(
    z
      .string()
      .trim()
      .refine((v) => URL.canParse(v) && protocols.includes(new URL(v).protocol))
      .optional(),
    { form, unset, sensitive: true },
    description,
  );
