import type { Metadata } from "next";
import { Suspense } from "react";
import { SyncsList } from "@/components/syncs/syncs-list";

export const metadata: Metadata = { title: "Syncs" };

export default function Page() {
  // SyncsList reads its filter from the address (useSearchParams), which needs a Suspense boundary.
  return (
    <Suspense>
      <SyncsList />
    </Suspense>
  );
}
