// Salesforce Consumer Goods Cloud destination: the same platform as our Salesforce CRM destination,
// so the same writes: sObject Collections upsert on Id (PATCH /composite/sobjects/{object}/Id,
// allOrNone false, 200 records a request; a record without Id is created, one with it updated) or
// create (POST /composite/sobjects), one SaveResult per record read back in order. The object is the
// stream: Account, User, Visit, RetailStore or RecordType, as the reference discovers them. Login is
// the username-password OAuth flow on the login host; requests go to the instance_url it answers.
// Reference: developer.salesforce.com (OAuth username-password flow, sObject Collections, describe).
import type { JsonSchema, WriteRecord } from "../types";
import { ConnectorError, errorMessage } from "../shared/errors";
import { defineRestDestination } from "../rest-kit/define";
import type { RestContext, RestResponse, WriteEndpoint } from "../rest-kit/types";
import { errorOf, FIELD_TYPES, saveResults, type Field } from "../salesforce/destination";
import { apiVersion, connectionSpecification, CONSUMER_GOODS_OBJECTS, consumerGoodsSettings, passwordAuth, TITLE } from "./config";

const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** The stream's object, checked to be an API name before it goes into a path. */
function objectOf(ctx: RestContext): string {
  const name = ctx.stream.name;
  if (!NAME.test(name)) throw new ConnectorError(`"${name}" is not a Salesforce object API name.`);
  return name;
}

const data = (config: RestContext["config"]) => `/services/data/${apiVersion(config)}`;

function collection(mode: "upsert" | "insert"): WriteEndpoint {
  return {
    item: (record: WriteRecord, ctx) => ({ attributes: { type: objectOf(ctx) }, ...record.payload }),
    request: (items, ctx) => ({
      method: mode === "upsert" ? "PATCH" : "POST",
      path: mode === "upsert" ? `${data(ctx.config)}/composite/sobjects/${objectOf(ctx)}/Id` : `${data(ctx.config)}/composite/sobjects`,
      body: { allOrNone: false, records: items },
    }),
    results: saveResults,
  };
}

function schemaOf(fields: Field[]): JsonSchema {
  const writable = fields.filter((f) => f.name === "Id" || f.createable || f.updateable);
  return { type: "object", properties: Object.fromEntries(writable.map((f) => [f.name, { type: FIELD_TYPES[f.type ?? ""] ?? ["string", "null"], title: f.label ?? f.name }])) };
}

export const consumerGoodsDestination = defineRestDestination({
  definition: {
    name: "SalesforceConsumerGoodsCloud",
    title: TITLE,
    category: "Retail",
    secretTargetFields: ["host"],
    icon: "/icons/salesforce-consumer-goods-cloud.svg",
    documentationUrl: "https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_composite_sobjects_collections_upsert.htm",
    connectionSpecification,
  },
  settings: consumerGoodsSettings,
  baseUrl: () => {
    throw new ConnectorError("Enter the login host (login.salesforce.com or your My Domain).");
  },
  auth: passwordAuth,
  limits: { maxRecords: 200 },
  // The reference's published budget: 100,000 calls a day, 10 at a time.
  rate: { limit: 100_000, unit: "day", concurrency: 10 },
  writes: { upsert: collection("upsert"), insert: collection("insert") },
  check: {
    request: (config) => ({ method: "GET", path: `${data(config)}/sobjects` }),
    describe: () => `Connected to ${TITLE}.`,
  },
  async discover(ctx) {
    const streams = [];
    for (const object of CONSUMER_GOODS_OBJECTS) {
      let response: RestResponse;
      try {
        response = await ctx.get(`${data(ctx.config)}/sobjects/${object}/describe`);
      } catch (err) {
        // An org without the object (Visit and RetailStore need Consumer Goods Cloud): not offered.
        if (/\b404\b|NOT_FOUND/.test(errorMessage(err))) continue;
        throw err;
      }
      const fields = (response.body as { fields?: Field[] } | undefined)?.fields ?? [];
      streams.push({ name: object, json_schema: schemaOf(fields), primary_key: ["Id"] });
    }
    if (streams.length === 0) throw new ConnectorError(`None of ${CONSUMER_GOODS_OBJECTS.join(", ")} could be described: does the user have API access to them?`);
    return streams;
  },
  errorText: (response) => {
    const error = errorOf(response);
    return error ? `${error.errorCode ?? "ERROR"}: ${error.message ?? ""}` : undefined;
  },
  throttled: (response) => response.status === 403 && errorOf(response)?.errorCode === "REQUEST_LIMIT_EXCEEDED",
  rateLimitHeaders: ["sforce-limit-info"],
  // The allowance is per rolling 24 hours: retrying within the hour is pointless (the engine caps the wait).
  retryAfter: (response) => (errorOf(response)?.errorCode === "REQUEST_LIMIT_EXCEEDED" ? 3600 : undefined),
});
