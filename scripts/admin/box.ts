// A few lines framed in a box, for what a person must not miss in a terminal full of output (the
// first admin's password at start-up, the new one after a reset).

/** `lines` inside a box of ASCII characters (any terminal, any log collector), with a blank line above and below. */
export function boxed(lines: string[]): string {
  const width = Math.max(...lines.map((l) => l.length));
  const rule = `+${"-".repeat(width + 4)}+`;
  return ["", rule, ...lines.map((l) => `|  ${l.padEnd(width)}  |`), rule, ""].join("\n");
}

/** How to sign in the first time, boxed: the generated password is shown this once. */
export function firstAdminBanner(admin: { email: string; generatedPassword?: string }, port: number): string {
  const lines = [`First admin created. Sign in at http://localhost:${port}`, "", `  email:     ${admin.email}`];
  if (admin.generatedPassword) {
    lines.push(`  password:  ${admin.generatedPassword}`, "", "Shown once (set ADMIN_PASSWORD to choose it). Lost it?", "  npm run admin -- reset-password " + admin.email);
  } else lines.push("  password:  the one in ADMIN_PASSWORD");
  return boxed(lines);
}
