// auth_type role of the AmazonS3 source: credentials from the STS emulator (tests/emulators/sts.ts,
// AssumeRole as AWS publishes it), signed with the server's own AWS credentials from the
// environment, then used against a real S3-protocol server (s3rver) as the other S3 tests do.
import { CreateBucketCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startS3Server, S3_ACCESS_KEY, S3_SECRET_KEY, type S3TestServer } from "@/tests/support/s3-server";
import { startStsEmulator } from "@/tests/emulators/sts";
import type { Row } from "../types";
import { getDefinition, validateConfiguration } from "../registry";
import { s3Source } from "./source";
import { clearRoleCredentials, roleCredentials } from "./role";

const ROLE = "arn:aws:iam::123456789012:role/datasync-reader";
const EXTERNAL_ID = "acme-7f3a9c21";
const SERVER_KEY = "AKIASERVERIDENTITY01";
const SERVER_SECRET = "server-own-secret-0123456789abcdef";
let s3: S3TestServer;
let sts: Awaited<ReturnType<typeof startStsEmulator>>;
const saved = { ...process.env };

const roleConfig = (extra: Row = {}): Row => ({
  auth_type: "role",
  arn: ROLE,
  external_id: EXTERNAL_ID,
  region: "us-east-1",
  bucket: "data",
  path: "/exports",
  endpoint: s3.endpoint,
  path_style: true,
  ...extra,
});

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  s3 = await startS3Server(["data"]);
  sts = await startStsEmulator({ callerAccessKeyId: SERVER_KEY, roles: { [ROLE]: EXTERNAL_ID }, issue: { accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET_KEY } });
  // The server's own identity, found by the SDK's default chain (the environment here).
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: SERVER_KEY, AWS_SECRET_ACCESS_KEY: SERVER_SECRET, AWS_ENDPOINT_URL_STS: sts.url, S3_ROLE_AUTH: "on" });
  const admin = new S3Client({ region: "us-east-1", endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET_KEY } });
  await admin.send(new CreateBucketCommand({ Bucket: "data" })).catch(() => undefined);
  await admin.send(new PutObjectCommand({ Bucket: "data", Key: "exports/people.csv", Body: "id,name\n1,Ada\n2,Grace\n" }));
  admin.destroy();
});
afterAll(async () => {
  for (const key of ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT_URL_STS", "OUTBOUND_ALLOW_PRIVATE", "S3_ROLE_AUTH"]) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
  await sts?.close();
  await s3?.stop();
});
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  process.env.S3_ROLE_AUTH = "on";
  clearRoleCredentials();
  sts.requests.length = 0;
  sts.state.assumed = 0;
  sts.state.identified = 0;
});

describe("AmazonS3 source, auth_type role", () => {
  it("takes the reference's role settings unchanged", () => {
    const source = getDefinition("AmazonS3", "source")!;
    expect(validateConfiguration(source, { auth_type: "role", region: "us-east-1", bucket: "b", arn: ROLE, external_id: EXTERNAL_ID })).toEqual([]);
  });

  it("assumes the role with the server's credentials and the external id, then reads with the role's credentials", async () => {
    expect(await s3Source.check(roleConfig())).toEqual({ ok: true, details: "Connected to s3://data/exports/: 1 data file there." });
    const call = sts.requests.find((r) => new URLSearchParams(r.body).get("Action") === "AssumeRole")!;
    const form = new URLSearchParams(call.body);
    expect(Object.fromEntries(form)).toMatchObject({ Action: "AssumeRole", Version: "2011-06-15", RoleArn: ROLE, ExternalId: EXTERNAL_ID, DurationSeconds: "3600" });
    expect(form.get("RoleSessionName")).toMatch(/^datasync-s3-[0-9a-f]{8}$/);
    expect(String(call.headers.authorization)).toContain(`Credential=${SERVER_KEY}/`);
    const preview = await s3Source.query!(roleConfig(), "SELECT id, name FROM 'people.csv' ORDER BY id", 10);
    expect(preview.rows.map((r) => r.name)).toEqual(["Ada", "Grace"]);
    // Cached: the check and the preview asked STS once, and who the server is once.
    expect(sts.state.assumed).toBe(1);
    expect(sts.state.identified).toBe(1);
  });

  it("asks again when the credentials are about to expire", async () => {
    const short = await startStsEmulator({ callerAccessKeyId: SERVER_KEY, roles: { [ROLE]: EXTERNAL_ID }, issue: { accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET_KEY }, lifetimeSeconds: 120 });
    process.env.AWS_ENDPOINT_URL_STS = short.url;
    try {
      await roleCredentials({ arn: ROLE, externalId: EXTERNAL_ID }, "us-east-1");
      const second = await roleCredentials({ arn: ROLE, externalId: EXTERNAL_ID }, "us-east-1");
      expect(short.state.assumed).toBe(2);
      expect(second.sessionToken).toMatch(/^FwoGZXIvYXdzE/);
      expect(second.expiration!.getTime()).toBeGreaterThan(Date.now());
    } finally {
      process.env.AWS_ENDPOINT_URL_STS = sts.url;
      await short.close();
    }
  });

  it("says why STS refused: a wrong external id, an unknown server identity, a bad ARN", async () => {
    const wrongId = await s3Source.check(roleConfig({ external_id: "someone-else" }));
    expect(wrongId).toEqual({ ok: false, details: expect.stringMatching(/^AWS STS did not let this server assume the role arn:aws:iam::123456789012:role\/datasync-reader \(AccessDenied: .*trust policy/) });
    process.env.AWS_ACCESS_KEY_ID = "AKIAUNKNOWN000000000";
    try {
      const unknown = await s3Source.check(roleConfig());
      expect(unknown.ok).toBe(false);
      expect(unknown.details).toMatch(/InvalidClientTokenId/);
      expect(unknown.details).not.toContain(SERVER_SECRET);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = SERVER_KEY;
    }
    expect((await s3Source.check(roleConfig({ arn: "arn:aws:s3:::data" }))).details).toMatch(/is not an IAM role ARN/);
    expect(sts.state.assumed).toBe(0);
  });

  it("refuses the confused deputy: role auth off unless the operator turns it on, the server's own account, no external id", async () => {
    // Finding 9: every role that trusts the server's AWS identity was open to any tenant.
    delete process.env.S3_ROLE_AUTH;
    const source = getDefinition("AmazonS3", "source")!;
    expect(validateConfiguration(source, roleConfig())).toEqual([{ path: "auth_type", message: expect.stringContaining("S3_ROLE_AUTH=on") }]);
    expect(await s3Source.check(roleConfig())).toEqual({ ok: false, details: expect.stringContaining("auth_type role is off on this server") });
    await expect(roleCredentials({ arn: ROLE, externalId: EXTERNAL_ID }, "us-east-1")).rejects.toThrow(/S3_ROLE_AUTH=on/);
    expect(sts.requests).toHaveLength(0);

    process.env.S3_ROLE_AUTH = "on";
    // A role of the operator's own account (the server's identity is in 111122223333), even one that would trust it.
    const own = "arn:aws:iam::111122223333:role/operator-backups";
    const deputy = await startStsEmulator({ callerAccessKeyId: SERVER_KEY, roles: { [own]: "any-id" }, issue: { accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET_KEY } });
    process.env.AWS_ENDPOINT_URL_STS = deputy.url;
    try {
      const refused = await s3Source.check(roleConfig({ arn: own, external_id: "any-id" }));
      expect(refused).toEqual({ ok: false, details: expect.stringContaining("is in this server's own AWS account") });
      expect(deputy.state.assumed).toBe(0);
      expect(deputy.state.identified).toBe(1);
    } finally {
      process.env.AWS_ENDPOINT_URL_STS = sts.url;
      await deputy.close();
    }
    // An external id is required: without one a trust policy pins nothing to the tenant.
    expect(validateConfiguration(source, { ...roleConfig(), external_id: undefined }).map((e) => e.path)).toContain("external_id");
    expect((await s3Source.check(roleConfig({ external_id: "" }))).ok).toBe(false);
    await expect(roleCredentials({ arn: ROLE, externalId: "" }, "us-east-1")).rejects.toThrow(/external id/);
    expect(sts.state.assumed).toBe(0);
  });

  it("sends the STS call through the outbound policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const blocked = await s3Source.check(roleConfig({ endpoint: undefined }));
    expect(blocked).toEqual({ ok: false, details: expect.stringMatching(/private, loopback or link-local/) });
    expect(sts.requests).toHaveLength(0);
  });
});
