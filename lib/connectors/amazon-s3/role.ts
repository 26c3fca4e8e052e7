// auth_type role: the AmazonS3 source reads with a role's temporary credentials from AWS STS
// AssumeRole (the role's ARN, the external id its trust policy asks for), signed with the server's
// own AWS credentials as the SDK finds them (environment, profile, instance or task role). The
// credentials are cached per role and external id until five minutes before they expire, so every
// discovery, preview and read does not call STS. AWS_ENDPOINT_URL_STS points the calls elsewhere (a
// VPC endpoint, a test server); every connection goes through the outbound policy, as S3's do.
// A confused deputy is the risk: the server's identity is the operator's, so a tenant could name a
// role the operator's own account trusts. Hence role auth is off unless S3_ROLE_AUTH is on, a role in
// the server's own account is refused (its account from STS GetCallerIdentity, asked once), and an
// external id is required, which each customer's trust policy must pin to that customer.
import { createHash, randomBytes } from "node:crypto";
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { env } from "@/lib/settings/env";
import { assertUrlAllowed, OutboundBlockedError } from "@/lib/net/policy";
import { guardedSdkAgents } from "@/lib/net/sdk-agents";
import { ConnectorError, errorMessage } from "../shared/errors";
import { setBounded } from "../shared/bounded-cache";
import { ROLE_AUTH_OFF } from "./config";

/** Temporary credentials as the AWS SDK's clients take them. */
export interface AwsCredentialIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

export interface S3Role {
  arn: string;
  externalId: string;
}

/** Renewed this long before the credentials expire, so none expires during a request. */
const RENEW_BEFORE_MS = 5 * 60_000;
/** One hour: AssumeRole's default, within every role's maximum session duration. */
const SESSION_SECONDS = 3600;
const cache = new Map<string, { credentials: AwsCredentialIdentity; expiresAt: number }>();
const pending = new Map<string, Promise<AwsCredentialIdentity>>();
/** The server's own AWS account, per STS endpoint and region: it does not change while the process runs. */
const ownAccounts = new Map<string, Promise<string>>();

const ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;

export function checkRole(role: S3Role): void {
  if (!env.S3_ROLE_AUTH) throw new ConnectorError(ROLE_AUTH_OFF);
  if (!ARN.test(role.arn)) throw new ConnectorError(`"${role.arn}" is not an IAM role ARN (arn:aws:iam::<account id>:role/<name>).`);
  if (!/^[\w+=,.@:/-]{2,1224}$/.test(role.externalId)) throw new ConnectorError("The external id must be 2 to 1224 letters, digits or +=,.@:/-.");
}

function stsClient(region: string): STSClient {
  const configured = env.AWS_ENDPOINT_URL_STS;
  const endpoint = configured ? assertUrlAllowed(configured).toString().replace(/\/$/, "") : undefined;
  return new STSClient({
    region,
    endpoint,
    maxAttempts: 3,
    requestHandler: { ...guardedSdkAgents(), connectionTimeout: 10_000, requestTimeout: 30_000 },
  });
}

function describe(err: unknown, role: S3Role): string {
  if (err instanceof OutboundBlockedError) return err.message;
  const e = err as { name?: string; Code?: string };
  const code = e?.name ?? e?.Code ?? "";
  if (code === "AccessDenied") {
    return `AWS STS did not let this server assume the role ${role.arn} (AccessDenied: ${errorMessage(err)}): the role's trust policy must trust this server's AWS identity with this external id.`;
  }
  if (code === "CredentialsProviderError") return `This server has no AWS credentials to ask STS for the role ${role.arn} with (${errorMessage(err)}): give it an instance or task role, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.`;
  return `AWS STS could not give credentials for the role ${role.arn}: ${code && code !== "Error" ? `${code}: ` : ""}${errorMessage(err)}`;
}

/** The account of the identity that signs for this server (GetCallerIdentity needs no permission). */
async function callerAccount(region: string): Promise<string> {
  const client = stsClient(region);
  try {
    const account = (await client.send(new GetCallerIdentityCommand({}))).Account;
    if (!account || !/^\d{12}$/.test(account)) throw new ConnectorError("AWS STS did not say which account this server's AWS identity belongs to.");
    return account;
  } catch (err) {
    throw err instanceof ConnectorError ? err : new ConnectorError(`This server could not ask AWS STS who it is: ${errorMessage(err)}`);
  } finally {
    client.destroy();
  }
}

/** Refuses a role in the server's own account: those roles are the operator's, never a tenant's. */
async function refuseOwnAccount(role: S3Role, region: string): Promise<void> {
  const key = `${env.AWS_ENDPOINT_URL_STS ?? ""}\u0000${region}`;
  let account = ownAccounts.get(key);
  if (!account) {
    account = callerAccount(region);
    // A failed call is asked again next time, not remembered.
    account.catch(() => ownAccounts.delete(key));
    setBounded(ownAccounts, key, account);
  }
  if (role.arn.split(":")[4] === (await account)) {
    throw new ConnectorError(`The role ${role.arn} is in this server's own AWS account, whose roles are not for connectors: use a role in your own account.`);
  }
}

async function assume(role: S3Role, region: string): Promise<{ credentials: AwsCredentialIdentity; expiresAt: number }> {
  await refuseOwnAccount(role, region);
  const client = stsClient(region);
  try {
    const answer = await client.send(
      new AssumeRoleCommand({ RoleArn: role.arn, ExternalId: role.externalId, RoleSessionName: `datasync-s3-${randomBytes(4).toString("hex")}`, DurationSeconds: SESSION_SECONDS }),
    );
    const c = answer.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken) throw new ConnectorError(`AWS STS answered without credentials for the role ${role.arn}.`);
    const expiresAt = c.Expiration ? c.Expiration.getTime() : Date.now() + SESSION_SECONDS * 1000;
    return { credentials: { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken, expiration: new Date(expiresAt) }, expiresAt };
  } catch (err) {
    throw err instanceof ConnectorError ? err : new ConnectorError(describe(err, role));
  } finally {
    client.destroy();
  }
}

/** The role's credentials, cached until shortly before they expire; concurrent callers share one STS call. */
export async function roleCredentials(role: S3Role, region: string): Promise<AwsCredentialIdentity> {
  checkRole(role);
  const key = createHash("sha256").update(`${role.arn}\u0000${role.externalId}\u0000${region}\u0000${env.AWS_ENDPOINT_URL_STS ?? ""}`).digest("hex");
  const cached = cache.get(key);
  if (cached && cached.expiresAt - RENEW_BEFORE_MS > Date.now()) return cached.credentials;
  let call = pending.get(key);
  if (!call) {
    call = assume(role, region)
      .then((fresh) => {
        setBounded(cache, key, fresh);
        return fresh.credentials;
      })
      .finally(() => pending.delete(key));
    pending.set(key, call);
  }
  return call;
}

/** Forgets every cached role credential (tests). */
export function clearRoleCredentials(): void {
  cache.clear();
  ownAccounts.clear();
}
