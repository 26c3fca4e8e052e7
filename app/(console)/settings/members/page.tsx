import type { Metadata } from "next";
import { MembersPage } from "@/components/settings/members";

export const metadata: Metadata = { title: "Members" };

export default function Page() {
  return <MembersPage />;
}
