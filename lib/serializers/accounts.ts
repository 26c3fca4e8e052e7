// Answers of the public account endpoints, in the reference's shapes: a message resource
// {data: {type: "message", id, attributes: {message}}} (the reference console reads
// data.attributes.message), and for sign-up a users resource (it checks data.attributes).
import { randomUUID } from "node:crypto";
import type { SignupResult } from "@/lib/services/accounts/accounts";
import type { MessageResource, SignupBody } from "./accounts.schema";
import { iso, resource } from "./resource";

/** `id` is a fresh UUID: the reference puts the user's id here, which would tell who has an account. */
export const messageResource = (message: string): MessageResource => ({ data: resource(randomUUID(), "message", { message }) });

/**
 * The sign-up answer is the same whether the address was new or taken, so its `id` cannot be the
 * user's: it is an opaque reference for this sign-up.
 */
export const serializeSignup = (s: SignupResult, message: string): SignupBody => ({
  data: resource(randomUUID(), "users", {
    name: s.name,
    email: s.email,
    created_at: iso(s.createdAt),
    email_verification_enabled: true,
    message,
  }),
});
