"use client";
// A settings page a role cannot use says so in a sentence (and where to go), instead of showing the
// API's permission error. The navigation already hides it (nav.ts); this covers a typed address.
import Link from "next/link";
import { PageHeader } from "@/components/ui/card";
import { LoadingState } from "@/components/ui/states";
import { useMe } from "@/lib/api-client/settings";
import { allowed, SETTINGS } from "./nav";

export function RequirePermission({ href, children }: { href: string; children: React.ReactNode }) {
  const me = useMe();
  const item = SETTINGS.find((s) => s.href === href);
  if (!item) return <>{children}</>;
  if (me.isLoading) return <LoadingState />;
  const role = me.data?.attributes.role;
  if (allowed(item, role?.policies?.permissions)) return <>{children}</>;
  return (
    <>
      <PageHeader title={item.label} />
      <p className="rounded-md border border-slate-200 bg-white px-4 py-6 text-sm text-slate-600" role="status">
        Your role{role ? ` (${role.role_name})` : ""} cannot see {item.label.toLowerCase()} in this workspace; an Admin manages them.{" "}
        <Link href="/dashboard" className="font-medium text-indigo-700 hover:underline">Back to the dashboard</Link>
      </p>
    </>
  );
}
