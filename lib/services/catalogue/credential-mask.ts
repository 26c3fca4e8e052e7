// Masks values shaped like credentials in text shown to people (record request/response): the value
// after a credential-like name (`Authorization: Bearer x`, `"api_key": "x"`, `token=x`), and bearer
// or basic tokens wherever they stand. Pure, so it is tested on its own.
import { SECRET_MASK } from "@/lib/connectors/shared/secrets";

const CREDENTIAL =
  /((?:proxy-)?authorization|x-api-key|api[-_]?key|access[-_]?token|auth[-_]?token|refresh[-_]?token|\btoken|password|passwd|secret|cookie|set-cookie)(["']?\s*[:=]\s*["']?)((?:bearer|basic|token)\s+)?[^\s"',;}&]+/gi;
const BEARER = /\b(bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
// Basic credentials are base64 (length a multiple of 4): "basic validation" stays as it is.
const BASIC = /\b(basic)\s+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/gi;

export function maskCredentials(text: string): string {
  return text
    .replace(CREDENTIAL, (_m, name: string, sep: string, scheme: string | undefined) => `${name}${sep}${scheme ?? ""}${SECRET_MASK}`)
    .replace(BEARER, (_m, scheme: string) => `${scheme} ${SECRET_MASK}`)
    .replace(BASIC, (m, scheme: string, value: string) => (value.length % 4 === 0 && /[0-9+/=]/.test(value) ? `${scheme} ${SECRET_MASK}` : m));
}
