// The Stripe objects the destination writes, as mapping targets: the reference's `Customer` and
// `Product` streams with their fields, plus `id` on Customer (to update a customer) and a few fields
// of Stripe's own. Other mapped fields go as they are: Stripe refuses a parameter it does not know,
// with a sentence naming it.
import type { JsonSchema } from "../types";
import type { RestStream } from "../rest-kit/types";

export type StripeObject = "customer" | "product";

/** The object a stream name means, in any case. */
export function stripeObjectOf(name: string): StripeObject | undefined {
  const lower = name.toLowerCase();
  return lower === "customer" || lower === "product" ? lower : undefined;
}

const text = (title: string): JsonSchema => ({ type: ["string", "null"], title });
const address: JsonSchema = {
  type: ["object", "null"],
  title: "Address",
  additionalProperties: true,
  properties: Object.fromEntries(["city", "country", "line1", "line2", "postal_code", "state"].map((f) => [f, { type: ["string", "null"], title: f }])),
};
const metadata: JsonSchema = { type: ["object", "null"], title: "Metadata (string values)", additionalProperties: true };

export const STRIPE_STREAMS: RestStream[] = [
  {
    name: "Customer",
    json_schema: {
      type: "object",
      additionalProperties: true,
      properties: {
        id: text("Customer ID (set to update that customer; empty creates one)"),
        email: text("Email"),
        name: text("Name"),
        description: text("Description"),
        phone: text("Phone"),
        payment_method: text("Payment method ID (attached on creation)"),
        metadata,
        address,
        shipping: {
          type: ["object", "null"],
          title: "Shipping",
          additionalProperties: true,
          properties: { address, name: text("Name"), phone: text("Phone") },
        },
        preferred_locales: { type: ["array", "null"], title: "Preferred locales", items: { type: "string" } },
        tax_exempt: { type: ["string", "null"], title: "Tax exemption", enum: ["none", "exempt", "reverse", null] },
      },
    },
    primary_key: ["id"],
  },
  {
    name: "Product",
    json_schema: {
      type: "object",
      additionalProperties: true,
      required: ["name"],
      properties: {
        id: text("Product ID (yours: created with it, or updated when it exists)"),
        name: { type: "string", title: "Name" },
        description: text("Description"),
        active: { type: ["boolean", "null"], title: "Active" },
        metadata,
        url: text("URL"),
        unit_label: text("Unit label"),
        statement_descriptor: text("Statement descriptor"),
        tax_code: text("Tax code"),
      },
    },
    primary_key: ["id"],
  },
];
