// The one way to make a Liquid engine in this project. Templates are written by workspace members and
// rendered on shared processes (the web process for checks and previews, workers for runs), so every
// engine gets no file system at all and bounded parse size, render time and memory.
// (lint forbids `new Liquid(` anywhere else.)
import {
  Liquid,
  Tag,
  toValue,
  type Context,
  type Emitter,
  type FS,
  type LiquidOptions,
  type TagToken,
  type Template,
  type TopLevelToken,
} from "liquidjs";
import { env } from "@/lib/settings/env";
import { registerExactMath } from "./exact-math";
import { plainParseError } from "./parse-sentences";

export const NO_FILES = "templates cannot include files";

/** Per template: source length; per render: wall time and characters or list items built in total. */
export interface TemplateLimits {
  parseLength: number;
  renderMs: number;
  memory: number;
}

// Also bundled into the console's live preview, which has no server environment: the defaults apply.
export const TEMPLATE_LIMITS: Readonly<TemplateLimits> = Object.freeze({
  parseLength: 100_000,
  renderMs: env.TEMPLATE_RENDER_LIMIT_MS,
  memory: env.TEMPLATE_MEMORY_LIMIT,
});

function refuseFiles(): never {
  throw new Error(NO_FILES);
}

/** Every lookup fails: nothing can reach the disk, whatever tag or API asks. */
const NO_FILE_SYSTEM: FS = {
  exists: async () => refuseFiles(),
  existsSync: refuseFiles,
  readFile: async () => refuseFiles(),
  readFileSync: refuseFiles,
  resolve: refuseFiles,
  contains: async () => false,
  containsSync: () => false,
};

/** include, render and layout read other templates from files: refused when the template is parsed. */
class FileTagRefused extends Tag {
  constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: Liquid) {
    super(token, remainTokens, liquid);
    throw new Error(`{% ${token.name} %} is not available: ${NO_FILES}.`);
  }

  render(): void {}
}

function stringify(value: unknown): string {
  const v: unknown = toValue(value);
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "";
  if (Array.isArray(v)) return v.map(stringify).join("");
  return String(v);
}

/** Liquid's own emitter (same stringify), plus every written character charged to the render's memory. */
class ChargedEmitter implements Emitter {
  buffer = "";
  constructor(private readonly memory: Context["memoryLimit"]) {}

  write(html: unknown): void {
    const text = stringify(html);
    this.memory.use(text.length);
    this.buffer += text;
  }
}

/**
 * Liquid charges most allocations to memoryLimit, but not rendered text: the output and
 * `{% capture %}`, which can double on every loop. Those start a render without an emitter; give
 * them one that charges what is written (nested blocks write into it).
 */
function chargeRenderedText(engine: Liquid): void {
  const renderer = engine.renderer;
  const renderTemplates = renderer.renderTemplates.bind(renderer);
  renderer.renderTemplates = (templates: Template[], ctx: Context, emitter?: Emitter) =>
    renderTemplates(templates, ctx, emitter ?? new ChargedEmitter(ctx.memoryLimit));
}

/** Options a caller may choose; file and limit settings are not among them. */
export type SafeLiquidOptions = Omit<
  LiquidOptions,
  "fs" | "templates" | "relativeReference" | "keepOutputType" | "parseLimit" | "renderLimit" | "memoryLimit"
>;

export function createLiquid(options: SafeLiquidOptions = {}, limits: TemplateLimits = TEMPLATE_LIMITS): Liquid {
  const engine = new Liquid({
    ...options,
    fs: NO_FILE_SYSTEM,
    relativeReference: false,
    parseLimit: limits.parseLength,
    renderLimit: limits.renderMs,
    memoryLimit: limits.memory,
  });
  for (const name of ["include", "render", "layout"]) engine.registerTag(name, FileTagRefused);
  // Math filters that neither bend a number held as exact text nor count NaN as 0.
  registerExactMath(engine);
  chargeRenderedText(engine);
  return engine;
}

const LIMIT_SENTENCES: [RegExp, (limits: TemplateLimits) => string][] = [
  [/^template render limit exceeded/, (l) => `it was stopped after ${l.renderMs} ms, the time limit of one render`],
  [
    /^memory alloc limit exceeded/,
    (l) => `it was stopped after building ${l.memory.toLocaleString("en-US")} characters or list items, the size limit of one render`,
  ],
  [/^parse length limit exceeded/, (l) => `it is longer than ${l.parseLength.toLocaleString("en-US")} characters, the limit for a template`],
];

/**
 * The sentence a person can act on: Liquid wraps errors (filter errors in RenderError, tag errors in
 * ParseError) and appends the template position; limit errors get the limit they hit, parse errors
 * what to fix (parse-sentences.ts).
 */
export function templateErrorMessage(err: unknown, limits: TemplateLimits = TEMPLATE_LIMITS): string {
  let current: unknown = err;
  while (current instanceof Error && (current as Error & { originalError?: unknown }).originalError) {
    current = (current as Error & { originalError?: unknown }).originalError;
  }
  const message = (current instanceof Error ? current.message : String(current)).replace(/, line:\d+, col:\d+[\s\S]*$/, "");
  for (const [pattern, sentence] of LIMIT_SENTENCES) {
    if (pattern.test(message)) return sentence(limits);
  }
  return plainParseError(message);
}

/** The parse limit for sources that are evaluated without engine.parse (single expressions). */
export function assertTemplateLength(source: string, limits: TemplateLimits = TEMPLATE_LIMITS): void {
  if (source.length > limits.parseLength) {
    throw new Error(`it is longer than ${limits.parseLength.toLocaleString("en-US")} characters, the limit for a template`);
  }
}
