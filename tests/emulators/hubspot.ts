// A HubSpot CRM v3 emulator, written from the published reference (developers.hubspot.com/docs/
// api-reference: objects batch create/update/upsert, properties, error handling, usage limits):
// Bearer private-app tokens (401 INVALID_AUTHENTICATION otherwise), at most 100 inputs per batch
// (400 VALIDATION_ERROR), unknown properties and malformed emails refused per input in a 207
// multi-status answer that names the input's objectWriteTraceId, and a per-token request window
// answered with 429 RATE_LIMIT and the X-HubSpot-RateLimit-* headers. The too-many-inputs
// wording is ours. Tests only.
import type { ServerResponse } from "node:http";
import { bearerToken, FixedWindow, json, parseBody, startEmulator, type ReceivedRequest } from "./common";

export interface HubspotProperty {
  name: string;
  label: string;
  type: "string" | "number" | "bool" | "enumeration" | "datetime";
  readOnly?: boolean;
}

export const HUBSPOT_CONTACT_PROPERTIES: HubspotProperty[] = [
  { name: "email", label: "Email", type: "string" },
  { name: "firstname", label: "First Name", type: "string" },
  { name: "lastname", label: "Last Name", type: "string" },
  { name: "lifecyclestage", label: "Lifecycle Stage", type: "enumeration" },
  { name: "num_employees", label: "Employees", type: "number" },
  { name: "hs_object_id", label: "Record ID", type: "number", readOnly: true },
];

interface Input {
  id?: string;
  idProperty?: string;
  properties?: Record<string, unknown>;
  objectWriteTraceId?: string;
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const MAX_INPUTS = 100;

export async function startHubspotEmulator(options: { token: string; maxPerInterval?: number; intervalMs?: number }) {
  const window = new FixedWindow(options.maxPerInterval ?? 100, options.intervalMs ?? 10_000);
  const contacts = new Map<string, { id: string; properties: Record<string, unknown> }>();
  let nextId = 1;

  function limitHeaders(remaining: number): Record<string, string> {
    return {
      "x-hubspot-ratelimit-interval-milliseconds": String(window.windowMs),
      "x-hubspot-ratelimit-max": String(window.max),
      "x-hubspot-ratelimit-remaining": String(remaining),
    };
  }

  /** Why an input is refused, as HubSpot words property validation errors. */
  function invalid(input: Input): string | undefined {
    const problems: string[] = [];
    for (const [name, value] of Object.entries(input.properties ?? {})) {
      const property = HUBSPOT_CONTACT_PROPERTIES.find((p) => p.name === name);
      if (!property) problems.push(JSON.stringify({ isValid: false, message: `Property "${name}" does not exist`, error: "PROPERTY_DOESNT_EXIST", name }));
      else if (property.readOnly) problems.push(JSON.stringify({ isValid: false, message: `${name} is a read only property; its value cannot be set.`, error: "READ_ONLY_VALUE", name }));
      else if (name === "email" && value !== "" && !EMAIL.test(String(value))) {
        problems.push(JSON.stringify({ isValid: false, message: `Email address ${String(value)} is invalid`, error: "INVALID_EMAIL", name }));
      }
    }
    return problems.length > 0 ? `Property values were not valid: [${problems.join(",")}]` : undefined;
  }

  function batch(operation: string, inputs: Input[], res: ServerResponse, headers: Record<string, string>) {
    const results: unknown[] = [];
    const errors: unknown[] = [];
    const now = new Date().toISOString();
    for (const input of inputs) {
      const trace = input.objectWriteTraceId ? { objectWriteTraceId: [input.objectWriteTraceId] } : {};
      const message = invalid(input);
      if (message) {
        errors.push({ status: "error", category: "VALIDATION_ERROR", message, context: trace });
        continue;
      }
      const key = operation === "create" ? String(input.properties?.email ?? "") : String(input.id ?? "");
      const existing = contacts.get(key);
      if (operation === "create" && existing) {
        errors.push({ status: "error", category: "CONFLICT", message: `Contact already exists. Existing ID: ${existing.id}`, context: trace });
        continue;
      }
      if (operation === "update" && !existing) {
        errors.push({ status: "error", category: "OBJECT_NOT_FOUND", message: `Could not find ${input.idProperty}=${key}`, context: { ...trace, ids: [key] } });
        continue;
      }
      const contact = existing ?? { id: String(nextId++), properties: {} };
      Object.assign(contact.properties, input.properties, input.idProperty ? { [input.idProperty]: key } : {});
      contacts.set(String(contact.properties.email ?? key), contact);
      results.push({ id: contact.id, properties: contact.properties, createdAt: now, updatedAt: now, archived: false, new: !existing, objectWriteTraceId: input.objectWriteTraceId });
    }
    const body = { status: "COMPLETE", results, startedAt: now, completedAt: now, ...(errors.length > 0 ? { numErrors: errors.length, errors } : {}) };
    json(res, errors.length > 0 ? 207 : operation === "create" ? 201 : 200, body, headers);
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    const token = bearerToken(req);
    if (token !== options.token) {
      return json(res, 401, {
        status: "error",
        message: "Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview",
        correlationId: "emulator",
        category: "INVALID_AUTHENTICATION",
      });
    }
    const hit = window.hit(token);
    const headers = limitHeaders(hit.remaining);
    if (!hit.allowed) {
      return json(res, 429, { status: "error", message: "You have reached your secondly limit.", errorType: "RATE_LIMIT", correlationId: "emulator", policyName: "SECONDLY" }, headers);
    }
    const url = new URL(req.url, "http://emulator");
    if (req.method === "GET" && url.pathname === "/crm/v3/properties/contacts") {
      const results = HUBSPOT_CONTACT_PROPERTIES.map((p) => ({ name: p.name, label: p.label, type: p.type, modificationMetadata: { readOnlyValue: !!p.readOnly } }));
      return json(res, 200, { results }, headers);
    }
    if (req.method === "GET" && url.pathname === "/crm/v3/objects/contacts") return json(res, 200, { results: [...contacts.values()].slice(0, 1) }, headers);
    const match = /^\/crm\/v3\/objects\/contacts\/batch\/(create|update|upsert)$/.exec(url.pathname);
    if (req.method !== "POST" || !match) return json(res, 404, { status: "error", message: `Unable to route ${req.method} ${url.pathname}`, category: "OBJECT_NOT_FOUND" }, headers);
    const inputs = (parseBody(req) as { inputs?: Input[] } | undefined)?.inputs;
    if (!Array.isArray(inputs)) return json(res, 400, { status: "error", message: "Invalid input JSON: inputs is required", category: "VALIDATION_ERROR" }, headers);
    if (inputs.length > MAX_INPUTS) {
      return json(res, 400, { status: "error", message: `Batch input size ${inputs.length} exceeds the limit of ${MAX_INPUTS}`, category: "VALIDATION_ERROR" }, headers);
    }
    batch(match[1], inputs, res, headers);
  }

  const server = await startEmulator(handle);
  return { ...server, contacts, window };
}
