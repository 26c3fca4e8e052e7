import type { Metadata } from "next";
import { SyncsList } from "@/components/syncs/syncs-list";

export const metadata: Metadata = { title: "Syncs" };

export default function Page() {
  return <SyncsList />;
}
