import { useEffect, useState, type ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider } from 'antd';
import { configureClient } from '../api/client-environment';
import { antdLocale, currentLanguage, useT } from '../i18n/i18n';
import { LayoutStateProvider, useLayoutState } from './layout-state';
import { SettingsProvider, useSettings } from './settings';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, staleTime: 10_000 },
      mutations: { retry: false },
    },
  });
}

/** Lets the HTTP client show its messages and alerts through antd's context-aware API. */
function ClientFeedback() {
  const { message, modal } = AntApp.useApp();
  useEffect(() => {
    configureClient({
      showError: (text) => void message.error(text),
      showSessionExpired: (title, content, okText, onConfirm) => {
        modal.warning({ title, content, okText, onOk: onConfirm, keyboard: false, closable: false });
      },
    });
  }, [message, modal]);
  return null;
}

function ThemedApp({ children }: { children: ReactNode }) {
  useT();
  const { settings } = useSettings();
  const { size } = useLayoutState();
  const language = currentLanguage();

  useEffect(() => {
    document.documentElement.style.setProperty('--ksp-primary', settings.theme);
  }, [settings.theme]);

  return (
    <ConfigProvider
      locale={antdLocale(language)}
      componentSize={size}
      theme={{ token: { colorPrimary: settings.theme } }}
    >
      <AntApp style={{ minHeight: '100%' }}>
        <ClientFeedback />
        {children}
      </AntApp>
    </ConfigProvider>
  );
}

/** Query cache, page settings, layout state, antd theme and locale. */
export function AppProviders({ children, queryClient }: { children: ReactNode; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  return (
    <QueryClientProvider client={client}>
      <SettingsProvider>
        <LayoutStateProvider>
          <ThemedApp>{children}</ThemedApp>
        </LayoutStateProvider>
      </SettingsProvider>
    </QueryClientProvider>
  );
}
