// Writing our own plain-data types (Catalog, Policies…) to Prisma Json columns. Their interfaces
// carry no index signature, so TypeScript cannot see they are JSON; the round trip through JSON makes
// them so (undefined members dropped, as the database would) without a cast.
import type { Prisma } from "@/lib/generated/prisma/client";

export function toJsonColumn(value: object): Prisma.InputJsonValue {
  const json: Prisma.InputJsonValue = JSON.parse(JSON.stringify(value));
  return json;
}
