// An S3 client whose every connection goes through the outbound policy: its HTTP(S) agents resolve
// names with guardedLookup (so the addresses connected to are the ones checked), and a custom
// endpoint is checked first (scheme, and IP literals, which never reach a lookup).
import { S3Client } from "@aws-sdk/client-s3";
import { assertUrlAllowed, OutboundBlockedError } from "@/lib/net/policy";
import { guardedSdkAgents } from "@/lib/net/sdk-agents";
import { ConnectorError, errorMessage } from "../shared/errors";
import { redact } from "../shared/secrets";
import type { S3Target } from "./config";
import { roleCredentials } from "./role";

const CONNECT_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 120_000;

export function s3Client(target: S3Target): S3Client {
  const endpoint = target.endpoint ? assertUrlAllowed(target.endpoint).toString().replace(/\/$/, "") : undefined;
  return new S3Client({
    region: target.region,
    endpoint,
    forcePathStyle: target.pathStyle,
    // A role's credentials come from STS, asked again (cached) whenever the SDK finds them expired.
    credentials: target.role ? () => roleCredentials(target.role!, target.region) : { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey },
    maxAttempts: 2,
    requestHandler: {
      ...guardedSdkAgents({ keepAlive: true }),
      connectionTimeout: CONNECT_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
    },
  });
}

interface S3ErrorShape {
  name?: string;
  code?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

/** Whether S3 said "not now" (throttling, 5xx) or the network failed: worth a retry. */
export function isRetryableS3Error(err: unknown): boolean {
  const e = err as S3ErrorShape;
  const status = e?.$metadata?.httpStatusCode;
  if (status !== undefined) return status === 429 || status === 408 || status >= 500;
  return !(err instanceof OutboundBlockedError) && /ECONN|ETIMEDOUT|EPIPE|socket|timeout/i.test(`${e?.code ?? ""} ${errorMessage(err)}`);
}

/** A sentence for an S3 failure, never carrying the credentials. */
export function describeS3Error(err: unknown, target: S3Target): string {
  if (err instanceof OutboundBlockedError || err instanceof ConnectorError) return err.message;
  const e = err as S3ErrorShape;
  const name = e?.name ?? e?.Code ?? "";
  const status = e?.$metadata?.httpStatusCode;
  const where = target.endpoint ? `the S3 endpoint ${target.endpoint}` : `S3 (${target.region})`;
  let sentence: string;
  // HEAD requests (HeadBucket) get no error body: only the status says what went wrong.
  const byStatus: Record<number, string> = { 403: "Forbidden", 404: "NoSuchBucket", 301: "PermanentRedirect", 400: "PermanentRedirect" };
  const known = name === "" || name === "Unknown" || name === "UnknownError" || name === "NotFound" || name === "Forbidden";
  switch (known && status !== undefined && byStatus[status] ? byStatus[status] : name) {
    case "NoSuchBucket":
      sentence = `The bucket "${target.bucket}" does not exist at ${where}: check the bucket name and the region.`;
      break;
    case "InvalidAccessKeyId":
      sentence = `${where} does not know this access key id: check the access key.`;
      break;
    case "SignatureDoesNotMatch":
      sentence = `${where} refused the secret access key (the request signature did not match): check the secret.`;
      break;
    case "AccessDenied":
      sentence = `${where} denied access to the bucket "${target.bucket}": the key lacks the permission (list, read or write objects).`;
      break;
    case "Forbidden":
      sentence = `${where} refused the request to the bucket "${target.bucket}" (HTTP 403): check the access key, the secret and the key's permissions.`;
      break;
    case "NotFound":
      sentence = `The bucket "${target.bucket}" was not found at ${where}.`;
      break;
    case "PermanentRedirect":
    case "AuthorizationHeaderMalformed":
      sentence = `The bucket "${target.bucket}" is not in the region ${target.region}: set the bucket's own region.`;
      break;
    default: {
      const code = e?.code ?? "";
      if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH/.test(`${code} ${errorMessage(err)}`))
        sentence = `Could not reach ${where}: ${code || errorMessage(err)}.`;
      else sentence = `${where} answered${status ? ` HTTP ${status}` : ""}: ${name && name !== "Error" ? `${name}: ` : ""}${errorMessage(err)}`;
    }
  }
  return redact(sentence, [target.secretAccessKey].filter((s) => s.length >= 3));
}
