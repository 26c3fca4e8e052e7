// The organization workspaces belong to. The reference groups workspaces under organizations (one
// per sign-up) and its console shows the organization's id and name beside each workspace; this
// server has no organizations table and no use for one (workspaces are the unit of tenancy and
// access), so every workspace belongs to one implicit organization: id 1, named by the operator.
import { env } from "./env";

export const ORGANIZATION_ID = 1;

/** ORGANIZATION_NAME, or a neutral default. */
export function organizationName(): string {
  return env.ORGANIZATION_NAME;
}
