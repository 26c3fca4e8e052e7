// JSON:API-like resource objects: {id: string, type, attributes}. Serializers list their fields
// explicitly so a new column never leaks into the API by accident.

export interface Resource<A> {
  id: string;
  type: string;
  attributes: A;
}

export const resource = <A>(id: number | bigint | string, type: string, attributes: A): Resource<A> => ({
  id: String(id),
  type,
  attributes,
});

/** ISO 8601 UTC with milliseconds, or null. */
export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);
