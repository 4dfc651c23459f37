import { useState, type ReactNode } from 'react';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { Alert, App, Flex, Switch } from 'antd';
import type { ColumnType } from 'antd/es/table';
import { useT } from '../../i18n/i18n';

/** A row a settings list switches on and off. */
interface SwitchRow {
  id: string;
  name: string;
  enabled: boolean;
}

/**
 * What the settings lists of switchable rows (scheduler tasks, syslog receivers) share: the
 * refresh of the list, the switch of a row (`setEnabled` is the call that stores it) and the save
 * of a form, each saying "saved" when done.
 */
export function useSwitchList<Row extends SwitchRow>(
  queryKey: QueryKey,
  setEnabled: (row: Row, enabled: boolean) => Promise<unknown>,
) {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [switching, setSwitching] = useState<string | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey });

  const toggle = async (row: Row, enabled: boolean) => {
    setSwitching(row.id);
    try {
      await setEnabled(row, enabled);
      void message.success(t('common:feedback.saved'));
    } catch {
      // The API client showed the server's reason.
    } finally {
      setSwitching(null);
      await refresh();
    }
  };

  const save = async (work: () => Promise<unknown>) => {
    await work();
    void message.success(t('common:feedback.saved'));
    await refresh();
  };

  /** The column of the rows' switches: `title` is also each switch's label, `testId` its prefix. */
  const enabledColumn = (title: string, canWrite: boolean, testId: string): ColumnType<Row> => ({
    title,
    dataIndex: 'enabled',
    render: (enabled: boolean, row) => (
      <Switch
        size="small"
        checked={enabled}
        disabled={!canWrite}
        loading={switching === row.id}
        onChange={(checked) => void toggle(row, checked)}
        aria-label={title}
        data-testid={`${testId}-${row.name}`}
      />
    ),
  });

  return { refresh, save, enabledColumn };
}

/** A settings list's page: its introduction (with the read-only note for a reader) above the list. */
export function SwitchListPage({
  intro,
  readOnly,
  canWrite,
  testId,
  children,
}: {
  intro: string;
  readOnly: string;
  canWrite: boolean;
  testId: string;
  children: ReactNode;
}) {
  return (
    <Flex vertical gap={16}>
      <Alert
        type="info"
        showIcon
        title={intro}
        description={canWrite ? undefined : readOnly}
        data-testid={testId}
      />
      {children}
    </Flex>
  );
}
