// Every environment variable the product reads, in one zod schema: its form, its default and what it
// does (the README's table is generated from the descriptions: `npm run docs:env`). Code reads
// `env.NAME`, never `process.env.NAME`, so a bad value fails with a message naming the variable and
// the form it must have instead of turning into NaN somewhere deep in a run.
//
// Each variable is parsed on its first read and kept until its raw value changes: tests set
// variables before (or between) the calls that read them, and a production process, whose
// environment does not change, parses each one once. `assertValidEnv()` parses them all at start-up,
// so a bad value stops the process before it serves anything.
//
// The variables are declared by area in lib/settings/env/ (one file each, kept short) and assembled
// here in the README's order.
import { z } from "zod";
import type { VariableMeta } from "./env/kinds";
import { serverVariables } from "./env/server";
import { accountVariables } from "./env/accounts";
import { mailVariables } from "./env/mail";
import { throttlingVariables } from "./env/throttling";
import { networkVariables } from "./env/network";
import { processVariables } from "./env/processes";
import { engineVariables } from "./env/engine";
import { webhookVariables } from "./env/webhooks";

export const envSchema = z.object({
  ...serverVariables,
  ...accountVariables,
  ...mailVariables,
  ...throttlingVariables,
  ...networkVariables,
  ...processVariables,
  ...engineVariables,
  ...webhookVariables,
});

export type Env = z.output<typeof envSchema>;
export type EnvName = keyof Env;
export const ENV_NAMES = Object.keys(envSchema.shape) as EnvName[];

/** The form and default text of a variable, for error messages and the README. */
export function variableMeta(name: EnvName): VariableMeta & { description: string } {
  const meta = envSchema.shape[name].meta();
  return {
    form: String(meta?.form ?? ""),
    unset: meta?.unset === undefined ? undefined : String(meta.unset),
    sensitive: meta?.sensitive === true,
    description: String(meta?.description ?? ""),
  };
}

function problem(name: EnvName): string {
  const meta = variableMeta(name);
  const value = meta.sensitive
    ? "the value set is not one (not shown: it may hold a password)"
    : `it is ${JSON.stringify(sourceOf()[name])}`;
  return `Environment variable ${name} must be ${meta.form}; ${value}.`;
}

/** One or more variables with values not of their form; the message names each and its form. */
export class EnvError extends Error {
  constructor(readonly names: EnvName[]) {
    super(names.map(problem).join("\n"));
    this.name = "EnvError";
  }
}

// In the console's bundle (the template preview reads template limits) there may be no `process`.
const sourceOf = (): Record<string, string | undefined> =>
  typeof process === "undefined" ? {} : process.env;

const parsed = new Map<EnvName, { raw: string | undefined; value: unknown }>();

function read<K extends EnvName>(name: K): Env[K] {
  const raw = sourceOf()[name];
  let hit = parsed.get(name);
  if (!hit || hit.raw !== raw) {
    const result = envSchema.shape[name].safeParse(raw);
    if (!result.success) throw new EnvError([name]);
    hit = { raw, value: result.data };
    parsed.set(name, hit);
  }
  // The schema of `name` produced this value, so it has the type Env[K].
  return hit.value as Env[K];
}

/** The environment, typed and validated: `env.ENGINE_BATCH_SIZE` is a number ≥ 1, whatever was set. */
export const env: Readonly<Env> = Object.freeze(
  Object.defineProperties(
    {},
    Object.fromEntries(ENV_NAMES.map((name) => [name, { enumerable: true, get: () => read(name) }])),
  ) as Env,
);

/** Parses every variable; throws one EnvError naming all that are malformed. Call at start-up. */
export function assertValidEnv(): void {
  const bad = ENV_NAMES.filter((name) => !envSchema.shape[name].safeParse(sourceOf()[name]).success);
  if (bad.length) throw new EnvError(bad);
}
