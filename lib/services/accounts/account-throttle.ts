// Throttling of the account endpoints (sign-up, password reset, email verification), which anyone
// can call and some of which send mail. Two fixed-window counters in login_throttles, shared by
// every web process (lib/services/accounts/login-throttle.ts, reserveInWindow):
//  - per client address: every request, ACCOUNT_MAX_REQUESTS_PER_IP per window;
//  - per email address named in the request: ACCOUNT_MAX_MAILS_PER_EMAIL per window, counted whether
//    or not an account uses that address, so a 429 tells nothing about it, and nobody can flood one
//    inbox from many addresses.
// The window is LOGIN_THROTTLE_WINDOW_SECONDS.
import "server-only";
import { env } from "@/lib/settings/env";
import { RateLimited } from "@/lib/errors";
import { reserveInWindow, throttleAddress, throttleLimits } from "./login-throttle";

export interface AccountLimits {
  perIp: number;
  perEmail: number;
  windowSeconds: number;
}

export const accountLimits = (): AccountLimits => ({
  perIp: env.ACCOUNT_MAX_REQUESTS_PER_IP,
  perEmail: env.ACCOUNT_MAX_MAILS_PER_EMAIL,
  windowSeconds: throttleLimits().windowSeconds,
});

function rateLimited(seconds: number): RateLimited {
  const wait = Math.max(1, seconds);
  const minutes = Math.ceil(wait / 60);
  const text = wait < 60 ? `${wait} second${wait === 1 ? "" : "s"}` : `${minutes} minute${minutes === 1 ? "" : "s"}`;
  return new RateLimited(`Too many account requests. Try again in ${text}.`, {
    headers: { "Retry-After": String(wait) },
  });
}

/**
 * Counts one account request from `ip` (and, when the request names one, for `email`); throws 429
 * with Retry-After when either is over its limit.
 */
export async function throttleAccountRequest(
  client: { ip?: string | null; email?: string },
  limits = accountLimits(),
): Promise<void> {
  const ip = client.ip ? throttleAddress(client.ip) : "unknown";
  const waitIp = await reserveInWindow(`account-ip:${ip}`, limits.perIp, limits.windowSeconds);
  if (waitIp !== null) throw rateLimited(waitIp);
  if (client.email !== undefined) await throttleMailTo(client.email, limits);
}

/**
 * Counts one mail to `email` against ACCOUNT_MAX_MAILS_PER_EMAIL (also for invitations, which any
 * workspace Admin can send to any address); 429 with Retry-After past it.
 */
export async function throttleMailTo(email: string, limits = accountLimits()): Promise<void> {
  const wait = await reserveInWindow(`account-email:${email.trim().toLowerCase()}`, limits.perEmail, limits.windowSeconds);
  if (wait !== null) throw rateLimited(wait);
}
