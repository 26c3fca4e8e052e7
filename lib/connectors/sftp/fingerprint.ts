// Host key fingerprints as configured: apart from the transport, so the definition's check of the
// field does not import ssh2 with the registry (lib/connectors/catalogue.ts).

/** Accepts `SHA256:abc…`, with or without base64 padding; anything else is refused on save. */
export function normalizeFingerprint(text: string): string | undefined {
  const m = /^\s*SHA256:([A-Za-z0-9+/]{43})=?\s*$/.exec(text);
  return m ? `SHA256:${m[1]}` : undefined;
}
