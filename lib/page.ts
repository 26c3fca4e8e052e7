/**
 * The window of a list read: services take it, lib/http/pagination.ts parses it from the query.
 * It lives here so services do not depend on the HTTP layer.
 */
export interface Page {
  page: number;
  perPage: number;
  skip: number;
  take: number;
}
