// Reading configuration values defensively: the API validates with ajv first, but connectors are
// also called by the engine with stored configurations, so each read states its fallback.
import type { Row } from "../types";
import { ConnectorError } from "./errors";

export function stringField(config: Row, key: string, fallback?: string): string {
  const value = config[key];
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number") return String(value);
  if (fallback !== undefined) return fallback;
  throw new ConnectorError(`The configuration is missing "${key}".`);
}

export function optionalString(config: Row, key: string): string | undefined {
  const value = config[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** Numbers may arrive as numeric strings (the reference console sends ports as strings). */
export function numberField(config: Row, key: string, fallback: number): number {
  const value = config[key];
  if (value === undefined || value === null || value === "") return fallback;
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isFinite(n)) throw new ConnectorError(`"${key}" must be a number, got "${String(value)}".`);
  return n;
}

export function objectField(config: Row, key: string): Record<string, unknown> {
  const value = config[key];
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function stringMap(config: Row, key: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(objectField(config, key))
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => [k, typeof v === "string" ? v : String(v)]),
  );
}

export function secondsToMs(config: Row, key: string, fallbackSeconds: number): number {
  const seconds = numberField(config, key, fallbackSeconds);
  return Math.max(1, Math.round(seconds * 1000));
}
