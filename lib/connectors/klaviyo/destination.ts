// Klaviyo: profiles are upserted with a bulk profile import job (POST /api/profile-bulk-import-jobs,
// JSON:API), up to 10,000 profiles and 5 MB per request and 100 KB per profile, with a private API
// key (Authorization: Klaviyo-API-Key …) and the revision header. The job answers 202 and runs
// later: the connector follows it (GET …/{id}) and reads its import errors (GET …/{id}/import-errors),
// whose source.pointer names the profile, so only those records fail. Null values are left out (the
// import cannot clear a field). Rate: 10/s burst, 150/min steady; 429 carries Retry-After.
// Reference: developers.klaviyo.com (Bulk Import Profiles and its job and import-errors endpoints;
// klaviyo/openapi stable specs).
import type { JsonSchema, Row, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { exactJson } from "../shared/values";
import { numberField } from "../shared/config";
import { defineRestDestination } from "../rest-kit/define";
import { restSpecification, secretField } from "../rest-kit/fields";
import { pollJob } from "../rest-kit/jobs";
import type { RecordResult, RestDiscoverContext } from "../rest-kit/types";

const BASE_URL = "https://a.klaviyo.com";
const REVISION = "2024-10-15";
const MAX_PROFILE_BYTES = 100 * 1024;
const JOBS = "/api/profile-bulk-import-jobs";

const IDENTIFIERS = ["email", "phone_number", "external_id"];
const ATTRIBUTES = new Set([...IDENTIFIERS, "first_name", "last_name", "organization", "locale", "title", "image"]);
const LOCATION = new Set(["address1", "address2", "city", "country", "latitude", "longitude", "region", "zip", "timezone", "ip"]);

/** A payload as a profile resource: standard attributes, location, and the rest as custom properties. */
function profile(record: WriteRecord): unknown {
  const attributes: Row = {};
  const location: Row = {};
  const properties: Row = {};
  for (const [key, value] of Object.entries(record.payload)) {
    if (value === null || value === undefined) continue;
    if (ATTRIBUTES.has(key)) attributes[key] = value;
    else if (LOCATION.has(key)) location[key] = value;
    else properties[key] = value;
  }
  if (!IDENTIFIERS.some((k) => attributes[k] !== undefined && attributes[k] !== "")) {
    throw new ConnectorError("The record has no email, phone_number or external_id, one of which Klaviyo needs to find the profile.");
  }
  const resource = {
    type: "profile",
    attributes: { ...attributes, ...(Object.keys(location).length > 0 ? { location } : {}), ...(Object.keys(properties).length > 0 ? { properties } : {}) },
  };
  const size = Buffer.byteLength(exactJson(resource));
  if (size > MAX_PROFILE_BYTES) throw new ConnectorError(`The profile is ${size} bytes as JSON; Klaviyo takes at most 100 KB per profile.`);
  return resource;
}

interface ImportError {
  attributes?: { code?: string; title?: string; detail?: string; source?: { pointer?: string | null } };
}

/** Every import error of the job, page by page (links.next, kept on the configured origin). */
async function importErrors(ctx: Pick<RestDiscoverContext, "get">, jobId: string): Promise<ImportError[]> {
  const errors: ImportError[] = [];
  let path = `${JOBS}/${encodeURIComponent(jobId)}/import-errors`;
  let query: Record<string, string> | undefined = { "page[size]": "100" };
  for (let page = 0; page < 200 && path; page++) {
    const response = await ctx.get(path, query);
    const body = response.body as { data?: ImportError[]; links?: { next?: string | null } } | undefined;
    errors.push(...(body?.data ?? []));
    const next = body?.links?.next;
    if (!next) break;
    const url = new URL(next);
    path = url.pathname;
    query = Object.fromEntries(url.searchParams);
  }
  return errors;
}

const POINTER = /^\/data\/attributes\/profiles\/data\/(\d+)(\/|$)/;

interface JobState {
  status?: string;
  failed_count?: number | null;
}

/** The typed settings: the private key under api_key, where the auth reads it (private_api_key wins). */
export function klaviyoSettings(config: Row): Row {
  const key = typeof config.private_api_key === "string" && config.private_api_key !== "" ? config.private_api_key : config.api_key;
  return { ...config, api_key: key };
}

export const klaviyoDestination = defineRestDestination({
  definition: {
    name: "Klaviyo",
    title: "Klaviyo",
    category: "Marketing Automation",
    icon: "/icons/klaviyo.svg",
    documentationUrl: "https://developers.klaviyo.com/en/reference/bulk_import_profiles",
    connectionSpecification: {
      ...restSpecification(
      "Klaviyo",
      BASE_URL,
      {
        public_api_key: secretField("Public API key", "The account's public key (site ID, six characters); the reference asks for it, the import does not use it.", 0),
        private_api_key: secretField("Private API key", "A private API key (pk_…) with profiles:write, profiles:read and lists:write.", 1),
        api_key: { ...secretField("Private API key (earlier name)", "The private API key under the name connectors saved before private_api_key; private_api_key wins when both are set.", 1), deprecated: true },
        list_id: { type: "string", title: "List ID", description: "Also add the imported profiles to this list (optional).", order: 2 },
        job_timeout: {
          type: "integer",
          title: "Import wait (seconds)",
          description: "How long to follow each import job for its per-profile errors before counting its profiles as accepted.",
          minimum: 5,
          maximum: 900,
          default: 120,
          order: 3,
        },
      },
      [],
      ),
      // The reference's two keys, unless the connector was saved with api_key alone.
      allOf: [{ if: { required: ["api_key"] }, else: { required: ["public_api_key", "private_api_key"] } }],
    },
  },
  settings: klaviyoSettings,
  baseUrl: BASE_URL,
  auth: { kind: "header", header: "Authorization", field: "api_key", prefix: "Klaviyo-API-Key " },
  headers: { revision: REVISION, "content-type": "application/vnd.api+json", accept: "application/vnd.api+json" },
  limits: { maxRecords: 10_000, maxBytes: 5 * 1024 * 1024 },
  rate: { limit: 150, unit: "minute", concurrency: 1 },
  writes: {
    upsert: {
      item: profile,
      request: (items, ctx) => {
        const list = typeof ctx.config.list_id === "string" && ctx.config.list_id !== "" ? ctx.config.list_id : undefined;
        return {
          method: "POST",
          path: JOBS,
          body: {
            data: {
              type: "profile-bulk-import-job",
              attributes: { profiles: { data: items } },
              ...(list ? { relationships: { lists: { data: [{ type: "list", id: list }] } } } : {}),
            },
          },
        };
      },
      async settle(response, items, ctx) {
        const jobId = (response.body as { data?: { id?: string } } | undefined)?.data?.id;
        if (!jobId) throw new ConnectorError("Klaviyo accepted the import without a job id; its result cannot be followed.");
        const read = async () => ((await ctx.get(`${JOBS}/${encodeURIComponent(jobId)}`)).body as { data?: { attributes?: JobState } } | undefined)?.data?.attributes ?? {};
        const { state, finished } = await pollJob(read, (s) => s.status === "complete" || s.status === "cancelled", {
          timeoutMs: numberField(ctx.config, "job_timeout", 120) * 1000,
          signal: ctx.signal,
        });
        const job = { job_id: jobId, status: state.status };
        if (!finished) return items.map((): RecordResult => ({ ok: true, detail: { ...job, note: "still running when the wait ended: per-profile errors not checked" } }));
        if (state.status === "cancelled") throw new ConnectorError(`Klaviyo cancelled import job ${jobId}.`);
        if (!state.failed_count) return items.map((): RecordResult => ({ ok: true, detail: job }));
        const byIndex = new Map<number, ImportError>();
        for (const error of await importErrors(ctx, jobId)) {
          const index = POINTER.exec(error.attributes?.source?.pointer ?? "")?.[1];
          if (index !== undefined && !byIndex.has(Number(index))) byIndex.set(Number(index), error);
        }
        return items.map((_, i): RecordResult => {
          const error = byIndex.get(i)?.attributes;
          if (!error) return { ok: true, detail: job };
          return { ok: false, error: [error.title, error.detail].filter(Boolean).join(" ") || "import error", detail: { ...job, ...error } };
        });
      },
    },
  },
  check: {
    request: () => ({ method: "GET", path: "/api/accounts" }),
    describe: (response) => {
      const name = (response.body as { data?: { attributes?: { contact_information?: { organization_name?: string } } }[] } | undefined)?.data?.[0]?.attributes
        ?.contact_information?.organization_name;
      return name ? `Connected to Klaviyo account "${name}".` : "Connected to Klaviyo.";
    },
  },
  async discover() {
    const text: JsonSchema = { type: ["string", "null"] };
    const properties: Record<string, JsonSchema> = Object.fromEntries(
      [...ATTRIBUTES, ...LOCATION].map((name) => [name, { ...text, title: name, ...(name === "latitude" || name === "longitude" ? { type: ["number", "string", "null"] } : {}) }]),
    );
    return [{ name: "profiles", json_schema: { type: "object", properties, additionalProperties: true }, primary_key: ["email"] }];
  },
  errorText: (response) => {
    const error = (response.body as { errors?: { title?: string; detail?: string }[] } | undefined)?.errors?.[0];
    return error ? [error.title, error.detail].filter(Boolean).join(" ") : undefined;
  },
});
