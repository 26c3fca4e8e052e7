import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { SyncWizard } from "@/components/syncs/sync-wizard";
import { PageHeader } from "@/components/ui/card";

export const metadata: Metadata = { title: "New sync" };

export default function Page() {
  return (
    <>
      <PageHeader breadcrumb={<Link href="/syncs" className="hover:underline">Syncs</Link>} title="New sync" description="Send a model's rows to a destination." />
      <Suspense>
        <SyncWizard />
      </Suspense>
    </>
  );
}
