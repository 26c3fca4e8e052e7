// Requests whose answer is read as it arrives (a file download, a warehouse's result rows), where
// sendHttp would hold the whole body in memory. The same guard as sendHttp: the URL is checked here,
// and the dispatcher (guardedDispatcher) connects only to addresses the guard let through.
import { fetch as undiciFetch, request, type Dispatcher as UndiciDispatcher, type Response } from "undici";
import type { Dispatcher } from "./http";
import { assertUrlAllowed } from "./policy";

export type StreamResponse = UndiciDispatcher.ResponseData;
export type StreamRequest = Omit<UndiciDispatcher.RequestOptions, "origin" | "path" | "dispatcher"> & { dispatcher: Dispatcher };

/** undici's `request`: status, headers, and a body to consume (or destroy) as a Node stream. */
export async function openStream(url: URL, options: StreamRequest): Promise<StreamResponse> {
  assertUrlAllowed(url.toString());
  return request(url, options);
}

/** A GET whose body is a web stream; a redirect is an error (its target would go unchecked). */
export async function fetchStream(url: string, init: { headers: Record<string, string>; dispatcher: Dispatcher; signal: AbortSignal }): Promise<Response> {
  assertUrlAllowed(url);
  return undiciFetch(url, { ...init, redirect: "error" });
}
