import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/card";

export const metadata: Metadata = { title: "Dashboard" };

export default function DashboardPage() {
  return <PageHeader title="Dashboard" description="Runs and rows synced across this workspace." />;
}
