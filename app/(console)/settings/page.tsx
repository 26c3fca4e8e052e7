import { SettingsIndex } from "@/components/shell/settings-index";

export default function Page() {
  return <SettingsIndex />;
}
