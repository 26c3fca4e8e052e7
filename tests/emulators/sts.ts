// An AWS STS emulator for the AssumeRole and GetCallerIdentity actions, written from the published API reference
// (docs.aws.amazon.com/STS/latest/APIReference: AssumeRole, the Query API's form-encoded POST with
// Action and Version, its XML answers AssumeRoleResponse/AssumeRoleResult/Credentials and
// GetCallerIdentityResponse/GetCallerIdentityResult/{Arn, UserId, Account}, and the
// ErrorResponse body of common errors): the caller's SigV4 Authorization header must name the known
// access key with an `sts` credential scope (403 InvalidClientTokenId otherwise; the signature itself
// is not recomputed), the role must exist and its trust policy's external id match (403
// AccessDenied), RoleSessionName 2–64 characters of [\w+=,.@-] and DurationSeconds 900–43200 (400
// ValidationError). The credentials handed out are the ones given (those of the S3 test server, so
// s3rver accepts them), with a fresh session token and Expiration after DurationSeconds (or
// `lifetimeSeconds`). Tests only.
import { randomBytes, randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { startHttpServer, type ReceivedRequest } from "../support/connectors";

export interface StsEmulatorOptions {
  /** The access key id of the server's own identity, which signs the calls. */
  callerAccessKeyId: string;
  /** The AWS account of that identity (GetCallerIdentity); 111122223333 unless given. */
  callerAccount?: string;
  /** Role ARN → the external id its trust policy requires. */
  roles: Record<string, string>;
  /** The temporary credentials handed out. */
  issue: { accessKeyId: string; secretAccessKey: string };
  /** Overrides DurationSeconds for the Expiration (tests of renewal). */
  lifetimeSeconds?: number;
}

const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function xml(res: ServerResponse, status: number, body: string) {
  res.writeHead(status, { "content-type": "text/xml", "x-amzn-requestid": randomUUID() });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
}

function error(res: ServerResponse, status: number, code: string, message: string) {
  xml(res, status, `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`);
}

export async function startStsEmulator(options: StsEmulatorOptions) {
  const state = { assumed: 0, identified: 0 };
  const account = options.callerAccount ?? "111122223333";

  function handle(req: ReceivedRequest, res: ServerResponse) {
    if (req.method !== "POST") return error(res, 400, "InvalidAction", "Could not find operation for this request.");
    const form = new URLSearchParams(req.body);
    const action = form.get("Action");
    if ((action !== "AssumeRole" && action !== "GetCallerIdentity") || form.get("Version") !== "2011-06-15") return error(res, 400, "InvalidAction", `Could not find operation ${action ?? ""} for version ${form.get("Version") ?? ""}`);
    const credential = /Credential=([^/]+)\/\d{8}\/[\w-]+\/sts\/aws4_request/.exec(String(req.headers.authorization ?? ""));
    if (!credential || credential[1] !== options.callerAccessKeyId) return error(res, 403, "InvalidClientTokenId", "The security token included in the request is invalid.");
    if (action === "GetCallerIdentity") {
      state.identified++;
      return xml(
        res,
        200,
        `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult><Arn>arn:aws:iam::${account}:user/datasync</Arn><UserId>AIDA${randomBytes(8).toString("hex").toUpperCase()}</UserId><Account>${account}</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></GetCallerIdentityResponse>`,
      );
    }
    const arn = form.get("RoleArn") ?? "";
    const session = form.get("RoleSessionName") ?? "";
    const duration = Number(form.get("DurationSeconds") ?? "3600");
    if (!/^[\w+=,.@-]{2,64}$/.test(session)) return error(res, 400, "ValidationError", "1 validation error detected: Value at 'roleSessionName' failed to satisfy constraint");
    if (!Number.isInteger(duration) || duration < 900 || duration > 43200) return error(res, 400, "ValidationError", "1 validation error detected: Value at 'durationSeconds' failed to satisfy constraint");
    const expected = options.roles[arn];
    if (expected === undefined || form.get("ExternalId") !== expected) {
      return error(res, 403, "AccessDenied", `User: arn:aws:iam::${account}:user/datasync is not authorized to perform: sts:AssumeRole on resource: ${arn}`);
    }
    state.assumed++;
    const expiration = new Date(Date.now() + (options.lifetimeSeconds ?? duration) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const role = arn.split("/").pop() ?? "role";
    xml(
      res,
      200,
      `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><AssumedRoleUser><Arn>${escapeXml(arn.replace(":iam::", ":sts::").replace(":role/", ":assumed-role/"))}/${escapeXml(session)}</Arn><AssumedRoleId>AROA${randomBytes(8).toString("hex").toUpperCase()}:${escapeXml(session)}</AssumedRoleId></AssumedRoleUser><Credentials><AccessKeyId>${escapeXml(options.issue.accessKeyId)}</AccessKeyId><SecretAccessKey>${escapeXml(options.issue.secretAccessKey)}</SecretAccessKey><SessionToken>FwoGZXIvYXdzE${randomBytes(24).toString("base64url")}</SessionToken><Expiration>${expiration}</Expiration></Credentials><PackedPolicySize>6</PackedPolicySize><SourceIdentity>${escapeXml(role)}</SourceIdentity></AssumeRoleResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></AssumeRoleResponse>`,
    );
  }

  const server = await startHttpServer(handle);
  return { ...server, state };
}
