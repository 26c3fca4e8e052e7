// Tailwind 4 reads its theme from app/globals.css (@theme); this file names the content roots and
// the brand colours for editors and plugins that still look for a config file.
import type { Config } from "tailwindcss";

const config: Config = {
  content: ["./app/**/*.{ts,tsx}", "./components/**/*.{ts,tsx}"],
  theme: { extend: { colors: { brand: { DEFAULT: "#4f46e5", dark: "#3730a3" } } } },
};

export default config;
