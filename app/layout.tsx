import type { Metadata } from "next";
import { GeistMono } from "geist/font/mono";
import { GeistSans } from "geist/font/sans";
import { connection } from "next/server";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Datasync", template: "%s · Datasync" },
  description: "Sync rows from your databases and model endpoints into the tools that use them.",
  // Declared so browsers do not ask for a missing /favicon.ico (a 404 in the console).
  icons: { icon: "/favicon.svg" },
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page is rendered per request: its scripts carry that request's CSP nonce (proxy.ts), which a
  // page prerendered at build time could not know.
  await connection();
  return (
    <html lang="en" className={`${GeistSans.variable} ${GeistMono.variable}`}>
      <body className="font-sans">{children}</body>
    </html>
  );
}
