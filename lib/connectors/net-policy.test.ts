import { afterEach, describe, expect, it } from "vitest";
import { assertHostAllowed, assertUrlAllowed, isMetadataAddress, isPrivateAddress, OutboundBlockedError } from "./net-policy";

afterEach(() => {
  delete process.env.OUTBOUND_BLOCK_PRIVATE;
});

describe("net policy", () => {
  it("classifies addresses, including IPv4-mapped IPv6", () => {
    for (const a of ["10.1.2.3", "172.20.0.1", "192.168.1.1", "127.0.0.1", "169.254.1.1", "::1", "fd12::1", "fe80::1", "::ffff:10.0.0.1"]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ["8.8.8.8", "172.32.0.1", "2606:4700::1111"]) expect(isPrivateAddress(a), a).toBe(false);
    expect(isMetadataAddress("169.254.169.254")).toBe(true);
    expect(isMetadataAddress("::ffff:169.254.169.254")).toBe(true);
    expect(isMetadataAddress("fd00:ec2::254")).toBe(true);
  });

  it("always refuses metadata endpoints, by address or by name", async () => {
    await expect(assertHostAllowed("169.254.169.254")).rejects.toBeInstanceOf(OutboundBlockedError);
    await expect(assertHostAllowed("[fd00:ec2::254]")).rejects.toThrow(/metadata/);
    await expect(assertHostAllowed("metadata.google.internal.")).rejects.toThrow(/metadata/);
    await expect(assertUrlAllowed("http://169.254.169.254/latest/meta-data/")).rejects.toThrow(/metadata/);
  });

  it("refuses private targets only when OUTBOUND_BLOCK_PRIVATE=1, after resolving the name", async () => {
    await expect(assertHostAllowed("localhost")).resolves.toBeUndefined();
    process.env.OUTBOUND_BLOCK_PRIVATE = "1";
    await expect(assertHostAllowed("localhost")).rejects.toThrow(/private, loopback or link-local addresses \(localhost is/);
    await expect(assertHostAllowed("10.0.0.5")).rejects.toThrow(OutboundBlockedError);
  });

  it("accepts only http and https URLs", async () => {
    await expect(assertUrlAllowed("file:///etc/passwd")).rejects.toThrow(/Only http and https/);
    await expect(assertUrlAllowed("not a url")).rejects.toThrow(/not a valid URL/);
  });
});
