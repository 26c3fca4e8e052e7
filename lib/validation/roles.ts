// Request shapes of the role endpoints. Policies are checked against the resources and actions of
// lib/auth/permissions.ts: an unknown resource or action is a 422, a missing one means "not allowed".
import { z } from "zod";
import { parseStored } from "./stored";
import { ACTIONS, RESOURCES, type Action, type Policies, type Resource } from "@/lib/auth/permissions";

const crudSchema = z.strictObject(
  Object.fromEntries(
    ACTIONS.map((a) => [a, z.boolean({ error: "must be true or false" }).optional()]),
  ) as Record<Action, z.ZodOptional<z.ZodBoolean>>,
  { error: `must be an object of ${ACTIONS.join(", ")} booleans` },
);

export const policiesSchema = z
  .object(
    {
      permissions: z.strictObject(
        Object.fromEntries(RESOURCES.map((r) => [r, crudSchema.optional()])) as Record<
          Resource,
          z.ZodOptional<typeof crudSchema>
        >,
        { error: `must be an object keyed by resource (${RESOURCES.join(", ")})` },
      ),
    },
    { error: "is required: send {permissions: {<resource>: {create, read, update, delete}}}" },
  )
  .describe(
    `{"permissions": {"<resource>": {"create": bool, "read": bool, "update": bool, "delete": bool}}}; resources: ${RESOURCES.join(", ")}. Anything left out is not allowed.`,
  );
export type PoliciesInput = z.infer<typeof policiesSchema>;

/** Fills every resource and action, so stored policies are complete and `false` is explicit. */
export function normalizePolicies(input: PoliciesInput): Policies {
  const permissions: Policies["permissions"] = {};
  for (const r of RESOURCES) {
    const crud = input.permissions[r];
    permissions[r] = {
      create: crud?.create === true,
      read: crud?.read === true,
      update: crud?.update === true,
      delete: crud?.delete === true,
    };
  }
  return { permissions };
}

/** A stored `policies` column, checked with the request schema instead of cast, completed like a request's. */
export const parsePolicies = (json: unknown, owner: string): Policies =>
  normalizePolicies(parseStored(policiesSchema, json, `policies of ${owner}`));

/** parsePolicies of a role row. */
export const rolePolicies = (role: { id: number; policies: unknown }): Policies => parsePolicies(role.policies, `role ${role.id}`);

const roleName = z
  .string({ error: "is required" })
  .trim()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters")
  .describe("A name unique in the workspace, different from the system roles' names.");
const roleDesc = z
  .string()
  .trim()
  .max(500, "must be at most 500 characters")
  .describe("What the role is for.");

export const createRoleSchema = z.object({
  role: z.object(
    { role_name: roleName, role_desc: roleDesc.optional(), policies: policiesSchema },
    { error: "is required: send {role: {role_name, role_desc, policies}}" },
  ),
});
export type CreateRoleInput = z.infer<typeof createRoleSchema>["role"];

export const updateRoleSchema = z.object({
  role: z.object(
    { role_name: roleName.optional(), role_desc: roleDesc.optional(), policies: policiesSchema.optional() },
    { error: "is required: send {role: {...fields to change}}" },
  ),
});
export type UpdateRoleInput = z.infer<typeof updateRoleSchema>["role"];
