// Facebook (Meta) Custom Audiences: people are added to a customer-list custom audience with
// POST /{version}/{audience_id}/users and, for mirror mode's deletes, removed with DELETE on the
// same edge, up to 10,000 people per request. The body is {payload: {schema, data}}: schema names
// the keys (EMAIL, PHONE, FN, …), each data row holds one person's values in that order, "" where
// a person has none. Personal keys are normalised and SHA-256 hashed here (normalise.ts): nothing
// identifying leaves in clear. Meta answers num_received, num_invalid_entries and
// invalid_entry_samples (value → reason): the people whose values it names fail, the rest are
// counted as received. Throttling comes as error codes (4, 17, 32, 613, 80000–80014) with the
// X-Business-Use-Case-Usage header's estimated_time_to_regain_access (minutes), or a 429.
// Reference: developers.facebook.com (Marketing API: Custom Audience Users, Customer List Custom
// Audiences hashing and normalisation, Custom Audience fields; Graph API rate limiting and error codes).
import type { JsonSchema, Row, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { defineRestDestination } from "../rest-kit/define";
import { restSpecification, secretField } from "../rest-kit/fields";
import type { RecordResult, RestRequest, RestResponse, WriteEndpoint } from "../rest-kit/types";
import { AUDIENCE_KEYS, audienceValue, identifiable, type AudienceKey } from "./normalise";

const BASE_URL = "https://graph.facebook.com";
const DEFAULT_VERSION = "v22.0";
const MAX_PEOPLE = 10_000;
/** Codes Meta throttles with (application, user, page, custom and business use case limits). */
const THROTTLE_CODES = new Set([4, 17, 32, 613]);
const BUSINESS_THROTTLE = { from: 80000, to: 80014 };

const KEY_BY_COLUMN = new Map<string, AudienceKey>(AUDIENCE_KEYS.map((k) => [k.toLowerCase(), k]));

const version = (config: Row) => {
  const value = typeof config.api_version === "string" && config.api_version !== "" ? config.api_version : DEFAULT_VERSION;
  if (!/^v\d{1,2}\.0$/.test(value)) throw new ConnectorError(`"${value}" is not a Graph API version (${DEFAULT_VERSION}).`);
  return value;
};
const idOf = (config: Row, key: string, what: string) => {
  const value = typeof config[key] === "string" ? String(config[key]).trim().replace(/^act_/, "") : "";
  if (!/^\d+$/.test(value)) throw new ConnectorError(`"${value}" is not a ${what} (digits only).`);
  return value;
};
const usersPath = (config: Row) => `/${version(config)}/${idOf(config, "audience_id", "custom audience id")}/users`;

/** One person: their keys and the values sent (hashed where Meta wants them hashed). */
type Person = Partial<Record<AudienceKey, string | number>>;

function person(record: WriteRecord): Person {
  const out: Person = {};
  for (const [column, value] of Object.entries(record.payload)) {
    const key = KEY_BY_COLUMN.get(column.toLowerCase());
    if (!key) {
      throw new ConnectorError(`Column "${column}" is not a Meta customer-list key (${AUDIENCE_KEYS.join(", ")}); map it to one or leave it out.`);
    }
    const sent = audienceValue(key, value);
    if (sent !== undefined) out[key] = sent;
  }
  if (!identifiable(Object.keys(out))) {
    throw new ConnectorError("The record has no identifier Meta could match a person on (EMAIL, PHONE, MADID, EXTERN_ID, PAGEUID, or FN with LN).");
  }
  return out;
}

/** The request body: the keys any person of the request has, and one row per person. */
function usersRequest(method: "POST" | "DELETE") {
  return (items: unknown[], ctx: { config: Row }): RestRequest => {
    const people = items as Person[];
    const schema = AUDIENCE_KEYS.filter((k) => people.some((p) => p[k] !== undefined));
    return { method, path: usersPath(ctx.config), body: { payload: { schema, data: people.map((p) => schema.map((k) => p[k] ?? "")) } } };
  };
}

interface UsersAnswer {
  audience_id?: string;
  session_id?: string;
  num_received?: number;
  num_invalid_entries?: number;
  invalid_entry_samples?: Record<string, string> | unknown[];
}

/** Meta's answer per person: those whose values its samples name fail; the rest were received. */
function usersResults(response: RestResponse, items: unknown[]): RecordResult[] {
  const answer = (response.body ?? {}) as UsersAnswer;
  const samples = answer.invalid_entry_samples && !Array.isArray(answer.invalid_entry_samples) ? answer.invalid_entry_samples : {};
  const counts = { num_received: answer.num_received, num_invalid_entries: answer.num_invalid_entries ?? 0 };
  const named = (p: unknown) => Object.values(p as Person).find((v) => Object.hasOwn(samples, String(v)));
  const namedCount = items.filter((p) => named(p) !== undefined).length;
  // Meta gives samples, not always every invalid entry: the count it could not name is said on each.
  const unnamed = Math.max(0, counts.num_invalid_entries - namedCount);
  const detail = { ...counts, ...(unnamed > 0 ? { note: `${unnamed} invalid ${unnamed === 1 ? "entry" : "entries"} of this request Meta counted without naming ${unnamed === 1 ? "it" : "them"}` } : {}) };
  return items.map((p): RecordResult => {
    const value = named(p);
    if (value === undefined) return { ok: true, detail };
    return { ok: false, error: `an invalid entry: ${samples[String(value)]}`, detail: counts };
  });
}

function usersEndpoint(method: "POST" | "DELETE"): WriteEndpoint {
  return { item: (record) => person(record), request: usersRequest(method), results: usersResults, maxRecords: MAX_PEOPLE };
}

interface GraphError {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  error_user_msg?: string;
}
const graphError = (response: RestResponse) => (response.body as { error?: GraphError } | undefined)?.error;

function isThrottle(code: number | undefined): boolean {
  return code !== undefined && (THROTTLE_CODES.has(code) || (code >= BUSINESS_THROTTLE.from && code <= BUSINESS_THROTTLE.to));
}

/** Seconds until access returns, from X-Business-Use-Case-Usage (minutes per business and use case). */
function regainSeconds(response: RestResponse): number | undefined {
  const header = response.headers["x-business-use-case-usage"];
  if (!header) return undefined;
  try {
    const usage = JSON.parse(header) as Record<string, { estimated_time_to_regain_access?: number }[]>;
    const minutes = Object.values(usage)
      .flat()
      .map((u) => u.estimated_time_to_regain_access)
      .filter((m): m is number => typeof m === "number" && Number.isFinite(m) && m >= 0);
    return minutes.length > 0 ? Math.max(...minutes) * 60 : undefined;
  } catch {
    return undefined;
  }
}

const peopleSchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: Object.fromEntries(
    AUDIENCE_KEYS.map((k) => [k, { type: k === "LOOKALIKE_VALUE" ? ["number", "null"] : ["string", "null"], title: k }]),
  ),
};

export const facebookCustomAudienceDestination = defineRestDestination({
  definition: {
    name: "FacebookCustomAudience",
    title: "Facebook Custom Audiences",
    category: "Ad-Tech",
    icon: "/icons/facebook-custom-audience.svg",
    documentationUrl: "https://developers.facebook.com/docs/marketing-api/reference/custom-audience/users",
    connectionSpecification: restSpecification(
      "Facebook Custom Audiences",
      BASE_URL,
      {
        access_token: secretField("Access token", "A system user's access token with the ads_management permission on the ad account.", 0),
        ad_account_id: { type: "string", title: "Ad account ID", description: "The ad account that owns the audience, with or without act_.", minLength: 1, order: 1 },
        audience_id: { type: "string", title: "Audience ID", description: "The customer-list custom audience people are added to (and removed from in mirror mode).", minLength: 1, order: 2 },
        api_version: { type: "string", title: "Graph API version", description: `Default ${DEFAULT_VERSION}.`, default: DEFAULT_VERSION, pattern: "^v\\d{1,2}\\.0$", order: 3 },
      },
      ["access_token", "ad_account_id", "audience_id"],
    ),
  },
  baseUrl: BASE_URL,
  auth: { kind: "bearer", field: "access_token" },
  limits: { maxRecords: MAX_PEOPLE },
  rate: { limit: 600, unit: "minute", concurrency: 10 },
  writes: { upsert: usersEndpoint("POST"), delete: usersEndpoint("DELETE") },
  check: {
    request: (config) => ({ method: "GET", path: `/${version(config)}/${idOf(config, "audience_id", "custom audience id")}`, query: { fields: "id,name,account_id,subtype" } }),
    describe: (response, config) => {
      const audience = (response.body ?? {}) as { name?: string; account_id?: string; subtype?: string };
      const account = idOf(config, "ad_account_id", "ad account id");
      if (audience.account_id && audience.account_id !== account) {
        return `Connected to Meta, but audience "${audience.name ?? "?"}" belongs to ad account ${audience.account_id}, not ${account}.`;
      }
      if (audience.subtype && audience.subtype !== "CUSTOM") return `Connected to Meta, but audience "${audience.name ?? "?"}" is a ${audience.subtype} audience: only customer lists take people.`;
      return `Connected to Meta; audience "${audience.name ?? "?"}" of ad account ${account} takes people.`;
    },
  },
  async discover() {
    return [{ name: "audience", json_schema: peopleSchema, primary_key: ["EMAIL"] }];
  },
  errorText: (response) => {
    const error = graphError(response);
    if (!error) return undefined;
    return `${error.message ?? "error"}${error.error_user_msg ? ` ${error.error_user_msg}` : ""} (code ${error.code ?? "?"}${error.error_subcode ? `, subcode ${error.error_subcode}` : ""})`;
  },
  throttled: (response) => isThrottle(graphError(response)?.code),
  rateLimitHeaders: ["x-business-use-case-usage", "x-app-usage", "x-ad-account-usage"],
  // Without a time from Meta, an hour's quota is assumed spent: a minute before trying again.
  retryAfter: (response) => regainSeconds(response) ?? (isThrottle(graphError(response)?.code) ? 60 : undefined),
});
