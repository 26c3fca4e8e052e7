"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect } from "react";
import { cn } from "@/components/ui/cn";
import { Toaster } from "@/components/ui/toast";
import { ApiError } from "@/lib/api-client/client";
import { ApiProvider, useConsole } from "@/lib/api-client/provider";
import { useMe } from "@/lib/api-client/settings";
import { Icon, type IconName } from "./icons";
import { allowed, NAV, SETTINGS } from "./nav";
import { UserMenu } from "./user-menu";
import { WorkspaceSwitcher } from "./workspace-switcher";

export function ConsoleShell(props: { email: string; workspaceId: number | null; children: React.ReactNode }) {
  return (
    <Toaster>
      <ApiProvider email={props.email} initialWorkspaceId={props.workspaceId}>
        <Frame>{props.children}</Frame>
      </ApiProvider>
    </Toaster>
  );
}

function NavLink({ href, label, icon }: { href: string; label: string; icon: IconName }) {
  const pathname = usePathname();
  const active = pathname === href || pathname.startsWith(`${href}/`);
  return (
    <Link
      href={href}
      aria-current={active ? "page" : undefined}
      className={cn(
        "flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400",
        active ? "bg-indigo-600 text-white" : "text-slate-300 hover:bg-slate-800 hover:text-white",
      )}
    >
      <Icon name={icon} className="h-4 w-4 shrink-0" />
      {label}
    </Link>
  );
}

function Frame({ children }: { children: React.ReactNode }) {
  const { workspaceId, setWorkspaceId } = useConsole();
  const me = useMe();
  // A remembered workspace the user no longer belongs to: fall back to the default one.
  useEffect(() => {
    if (workspaceId && me.error instanceof ApiError && me.error.httpStatus === 404) setWorkspaceId(null);
  }, [me.error, workspaceId, setWorkspaceId]);

  return (
    <div className="flex min-h-screen">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2">
        Skip to content
      </a>
      <aside className="fixed inset-y-0 left-0 flex w-60 flex-col bg-slate-900">
        <div className="flex h-14 items-center gap-2 px-5">
          <span className="flex h-7 w-7 items-center justify-center rounded-md bg-indigo-500 text-sm font-bold text-white" aria-hidden>
            D
          </span>
          <span className="text-base font-semibold tracking-tight text-white">Datasync</span>
        </div>
        <div className="px-3 pb-3">
          <WorkspaceSwitcher />
        </div>
        <nav aria-label="Main" className="flex-1 space-y-1 overflow-y-auto px-3">
          {NAV.map((item) => (
            <NavLink key={item.href} {...item} />
          ))}
          <p className="px-3 pb-1 pt-5 text-xs font-semibold uppercase tracking-wider text-slate-500">Settings</p>
          {SETTINGS.filter((item) => allowed(item, me.data?.attributes.role?.policies?.permissions)).map((item) => (
            <NavLink key={item.href} {...item} />
          ))}
          <a
            href="/docs/api"
            target="_blank"
            rel="noopener"
            className="mt-5 flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium text-slate-300 hover:bg-slate-800 hover:text-white focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400"
          >
            <Icon name="docs" className="h-4 w-4 shrink-0" />
            API reference <span aria-hidden className="text-xs text-slate-500">↗</span>
          </a>
        </nav>
        <div className="border-t border-slate-800 p-3">
          <UserMenu />
        </div>
      </aside>
      <main id="main" className="ml-60 min-w-0 flex-1 px-8 py-8">
        <div className="mx-auto max-w-6xl">{children}</div>
      </main>
    </div>
  );
}
