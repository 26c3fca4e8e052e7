import { describe, expect, it } from "vitest";
import { newWebhookSecret, signatureHeader, signatureOf, verifySignature } from "./signature";

describe("webhook signatures", () => {
  const secret = "whsec_test";
  const body = JSON.stringify({ id: "evt_1", type: "ping" });

  it("signs `${t}.${body}` with HMAC-SHA256 (a known vector)", () => {
    // printf '%s' '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
    expect(signatureOf(secret, 1_700_000_000, '{"a":1}')).toBe("38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789");
    expect(signatureHeader(secret, body, 1_700_000_000)).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
  });

  it("verifies its own header and refuses a changed body, another secret or an old timestamp", () => {
    const header = signatureHeader(secret, body, 1_700_000_000);
    expect(verifySignature(header, body, secret, 1_700_000_100)).toBe(true);
    expect(verifySignature(header, `${body} `, secret, 1_700_000_100)).toBe(false);
    expect(verifySignature(header, body, "whsec_other", 1_700_000_100)).toBe(false);
    expect(verifySignature(header, body, secret, 1_700_001_000)).toBe(false);
    expect(verifySignature("v1=abc", body, secret, 1_700_000_000)).toBe(false);
  });

  it("makes a fresh 64-hex-digit secret each time", () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(newWebhookSecret()).not.toBe(a);
  });
});
