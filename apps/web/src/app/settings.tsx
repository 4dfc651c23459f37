import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

/** Page style settings (defaults of docs/console.md#layout), persisted in localStorage. */
export interface Settings {
  theme: string;
  showSettings: boolean;
  tagsView: boolean;
  fixedHeader: boolean;
  sidebarLogo: boolean;
}

export const defaultSettings: Settings = {
  theme: '#1677ff',
  showSettings: true,
  tagsView: true,
  fixedHeader: false,
  sidebarLogo: false,
};

export const SETTINGS_STORAGE_KEY = 'settings';

const HEX_COLOR = /^#[0-9a-f]{6}$/i;

/** Stored settings over the defaults; anything malformed falls back to its default. */
export function readSettings(raw: string | null): Settings {
  if (!raw) return defaultSettings;
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null) return defaultSettings;
    const stored = value as Record<string, unknown>;
    const flag = (key: Exclude<keyof Settings, 'theme'>) =>
      typeof stored[key] === 'boolean' ? stored[key] : defaultSettings[key];
    return {
      theme:
        typeof stored.theme === 'string' && HEX_COLOR.test(stored.theme)
          ? stored.theme
          : defaultSettings.theme,
      showSettings: flag('showSettings'),
      tagsView: flag('tagsView'),
      fixedHeader: flag('fixedHeader'),
      sidebarLogo: flag('sidebarLogo'),
    };
  } catch {
    return defaultSettings;
  }
}

interface SettingsContextValue {
  settings: Settings;
  change: (patch: Partial<Settings>) => void;
  reset: () => void;
}

const SettingsContext = createContext<SettingsContextValue | null>(null);

export function SettingsProvider({ children }: { children: ReactNode }) {
  const [settings, setSettings] = useState(() => readSettings(localStorage.getItem(SETTINGS_STORAGE_KEY)));

  const change = useCallback((patch: Partial<Settings>) => {
    setSettings((current) => {
      const next = { ...current, ...patch };
      localStorage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify(next));
      return next;
    });
  }, []);

  const reset = useCallback(() => {
    localStorage.removeItem(SETTINGS_STORAGE_KEY);
    setSettings(defaultSettings);
  }, []);

  const value = useMemo(() => ({ settings, change, reset }), [settings, change, reset]);
  return <SettingsContext value={value}>{children}</SettingsContext>;
}

export function useSettings(): SettingsContextValue {
  const value = useContext(SettingsContext);
  if (!value) throw new Error('useSettings outside SettingsProvider');
  return value;
}
