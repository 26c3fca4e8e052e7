import type { Metadata } from "next";
import { RolesPage } from "@/components/settings/roles";

export const metadata: Metadata = { title: "Roles" };

export default function Page() {
  return <RolesPage />;
}
