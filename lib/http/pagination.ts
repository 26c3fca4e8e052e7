// Pagination of behaviour.md section 2: `page`/`per_page` or `page[number]`/`page[size]`;
// default 25, max 100 (clamped); links are absolute and always carry all five keys. List
// operations declare it as part of their query schema (`paginated`), so the OpenAPI document
// describes it and handlers get `query.page`.
import { z } from "zod";
import { BadRequest } from "@/lib/errors";

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;

export interface Page {
  page: number;
  perPage: number;
  skip: number;
  take: number;
}

type Lookup = (name: string) => string | null | undefined;

/** The first of `names` present in the query, as a whole number of 1 or more (400 otherwise). */
function positiveInt(get: Lookup, ...names: string[]): number | undefined {
  const name = names.find((n) => get(n) != null);
  const raw = name === undefined ? null : get(name)!;
  if (raw === null || raw === "") return undefined;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    const message = `must be a whole number of 1 or more (got "${raw.slice(0, 40)}")`;
    throw new BadRequest(`The query parameter ${name} ${message}.`, { errors: [{ path: name!, in: "query", message }] });
  }
  return Number(raw);
}

function pageFrom(get: Lookup): Page {
  const page = positiveInt(get, "page[number]", "page") ?? 1;
  const requested = positiveInt(get, "page[size]", "per_page", "page_size") ?? DEFAULT_PER_PAGE;
  const perPage = Math.min(requested, MAX_PER_PAGE);
  // Pages past any plausible data set would overflow OFFSET; treat them as empty pages.
  const skip = Math.min((page - 1) * perPage, Number.MAX_SAFE_INTEGER);
  return { page, perPage, skip, take: perPage };
}

export function parsePage(params: URLSearchParams): Page {
  return pageFrom((name) => params.get(name));
}

/**
 * A paging parameter as the schema sees it: the first value when given more than once (as
 * URLSearchParams.get reads it), checked by the transform of `paginated` so the 400 and its
 * message stay those of parsePage. Documented as the integer it must be.
 */
const pageParam = (description: string) =>
  z
    .preprocess((v: unknown) => (Array.isArray(v) ? v[0] : v), z.string().optional())
    .meta({ type: "integer", minimum: 1, description });

const PAGE_FIELDS = {
  page: pageParam("Page number, from 1 (default 1). Alias: page[number]."),
  per_page: pageParam(`Items per page (default ${DEFAULT_PER_PAGE}, at most ${MAX_PER_PAGE}). Aliases: page[size], page_size.`),
  "page[number]": pageParam("Alias of page."),
  "page[size]": pageParam("Alias of per_page."),
  page_size: pageParam("Alias of per_page."),
};

type PageKey = keyof typeof PAGE_FIELDS;
const PAGE_KEYS = Object.keys(PAGE_FIELDS) as PageKey[];

/** The query without its paging parameters, and the page they ask for. */
function splitPage<T extends object>(query: T): Omit<T, PageKey> & { page: Page } {
  const rest = { ...query };
  const raw = new Map<string, unknown>();
  for (const key of PAGE_KEYS) {
    raw.set(key, Reflect.get(rest, key));
    Reflect.deleteProperty(rest, key);
  }
  const page = pageFrom((name) => {
    const value = raw.get(name);
    return typeof value === "string" ? value : undefined;
  });
  return { ...rest, page };
}

/**
 * A list operation's query schema: `filters` plus the paging parameters, parsed into `page`.
 * The paging parameters are checked after the filters, so a bad filter is reported first.
 */
export function paginated<S extends z.ZodObject>(filters: S) {
  return filters.extend(PAGE_FIELDS).transform((query) => splitPage(query));
}

/** The query schema of a list without filters. */
export const pageQuery = paginated(z.object({}));

export const linksSchema = z
  .strictObject({
    self: z.string(),
    first: z.string(),
    prev: z.string().nullable(),
    next: z.string().nullable(),
    last: z.string(),
  })
  .describe("Absolute URLs of this, the first, previous, next and last page (null past either end).")
  .meta({ id: "PageLinks" });
export type Links = z.infer<typeof linksSchema>;

export const metaSchema = z
  .strictObject({
    page: z.number().int(),
    per_page: z.number().int(),
    total_count: z.number().int(),
    total_pages: z.number().int(),
  })
  .meta({ id: "PageMeta" });
export type Meta = z.infer<typeof metaSchema>;

/** A page of `item`: {data, links, meta}. */
export const listSchema = <T extends z.ZodType>(item: T) => z.strictObject({ data: z.array(item), links: linksSchema, meta: metaSchema });

export function pageLinks(url: URL, page: Page, total: number): { links: Links; meta: Meta } {
  const totalPages = Math.max(1, Math.ceil(total / page.perPage));
  const at = (n: number) => {
    const u = new URL(url.toString());
    for (const key of ["page[number]", "page[size]", "page_size"]) u.searchParams.delete(key);
    u.searchParams.set("page", String(n));
    u.searchParams.set("per_page", String(page.perPage));
    return u.toString();
  };
  return {
    links: {
      self: at(page.page),
      first: at(1),
      prev: page.page > 1 ? at(Math.min(page.page - 1, totalPages)) : null,
      next: page.page < totalPages ? at(page.page + 1) : null,
      last: at(totalPages),
    },
    meta: { page: page.page, per_page: page.perPage, total_count: total, total_pages: totalPages },
  };
}
