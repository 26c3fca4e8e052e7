"use client";
import { useState } from "react";
import { cn } from "@/components/ui/cn";

/**
 * The icon's path on this server. The API gives icons as absolute URLs, but the page loads them from
 * its own origin (the content security policy allows images from 'self' only).
 */
export function iconPath(icon: string | null | undefined): string | null {
  if (!icon) return null;
  try {
    const url = new URL(icon, "http://local.invalid");
    return url.pathname.endsWith(".svg") || url.pathname.endsWith(".png") ? url.pathname : null;
  } catch {
    return null;
  }
}

/** A connector's icon (`public/icons/*.svg`, named by its definition), or a generic plug when it has none or it fails to load. */
export function ConnectorIcon({ name, icon, className }: { name: string; icon?: string | null; className?: string }) {
  const src = iconPath(icon);
  const [failed, setFailed] = useState<string | null>(null);
  const box = cn("inline-flex shrink-0 items-center justify-center", className ?? "h-8 w-8");
  if (src && failed !== src) {
    // eslint-disable-next-line @next/next/no-img-element -- tiny static SVGs; next/image adds nothing here.
    return <img src={src} alt="" aria-hidden data-icon={name} className={cn(box, "rounded-md object-contain")} onError={() => setFailed(src)} />;
  }
  return (
    <span aria-hidden data-icon={name} data-generic-icon="" className={cn(box, "rounded-md bg-slate-200 text-slate-600")}>
      <svg viewBox="0 0 24 24" className="h-3/5 w-3/5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <path d="M9 2v6M15 2v6M6 8h12v4a6 6 0 0 1-12 0zM12 18v4" />
      </svg>
    </span>
  );
}
