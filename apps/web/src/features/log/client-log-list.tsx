import { useState } from 'react';
import { Typography } from 'antd';
import type { ColumnType } from 'antd/es/table';
import { clientLogEffects, clientLogLevels } from '@ksp/contracts';
import { clientLogKeys, exportClientLogs, listClientLogs, type ClientLogRow } from '../../api/log';
import { withWidths } from '../../components/columns';
import { formatDateTime } from '../../components/date-time';
import { ListPage, readListQuery, type ListFilter } from '../../components/list-page';
import { useViewSearchParams } from '../../components/view-activity';
import { useT } from '../../i18n/i18n';
import { ClientLogDetailDrawer } from './client-log-detail';
import { EffectTag, LevelTag } from './client-log-display';
import { cursorPager } from './cursor-pager';
import { ExportButtons } from './log-export';
import { clientLogFilterQuery } from './log-filters';
import { TimeFilter } from './log-time-filter';

/**
 * Client records: what agents uploaded about file operations (docs/modules.md#client-records), newest first by
 * receipt, filtered and exported on the server like the server records.
 */
export function ClientLogList({ keepParams }: { keepParams?: readonly string[] }) {
  const t = useT();
  // Stepping through pages goes by position (next_cursor): a deep page costs what the first does.
  const [fetchClientLogs] = useState(() => cursorPager(listClientLogs));
  const [params] = useViewSearchParams();
  const [open, setOpen] = useState<ClientLogRow | null>(null);

  const filters: ListFilter[] = [
    { name: 'time', label: t('log:filters.time'), render: (props) => <TimeFilter {...props} /> },
    {
      name: 'level',
      label: t('log:client.fields.level'),
      options: clientLogLevels.map((value) => ({ value, label: t(`log:client.levels.${value}`) })),
      width: 130,
    },
    {
      name: 'effect',
      label: t('log:client.fields.effect'),
      options: clientLogEffects.map((value) => ({ value, label: t(`log:client.effects.${value}`) })),
      width: 130,
    },
    {
      name: 'action',
      label: t('log:client.fields.action'),
      placeholder: t('log:client.actionHint'),
      width: 180,
    },
    {
      name: 'client',
      label: t('log:client.fields.client'),
      placeholder: t('log:client.clientHint'),
      width: 200,
    },
    { name: 'os_user', label: t('log:client.fields.osUser') },
    { name: 'ip', label: t('log:client.fields.ip') },
    { name: 'q', label: t('log:filters.q'), placeholder: t('log:client.qHint'), width: 220 },
  ];
  const applied = readListQuery(params, filters).filters;

  const columns: ColumnType<ClientLogRow>[] = withWidths<ClientLogRow>(
    [
      {
        title: t('log:client.fields.level'),
        dataIndex: 'level',
        render: (_value: unknown, row) => <LevelTag level={row.level} />,
      },
      {
        title: t('log:client.fields.receivedAt'),
        dataIndex: 'received_at',
        render: (value: string, row) => (
          <Typography.Link
            onClick={(event) => {
              event.stopPropagation();
              setOpen(row);
            }}
            data-testid="client-log-open"
          >
            {formatDateTime(value)}
          </Typography.Link>
        ),
      },
      {
        title: t('log:client.fields.action'),
        dataIndex: 'action',
        render: (value: string) => <code data-testid="client-log-action">{value}</code>,
      },
      {
        title: t('log:client.fields.resource'),
        dataIndex: 'resource',
        ellipsis: true,
        render: (value: string, row) => (
          <Typography.Text ellipsis={{ tooltip: `${row.guard_point} · ${row.policy}` }}>
            {value || t('log:none')}
          </Typography.Text>
        ),
      },
      {
        title: t('log:client.fields.osUser'),
        dataIndex: 'os_user',
        ellipsis: true,
        render: (value: string) => <span data-testid="client-log-user">{value || t('log:none')}</span>,
      },
      {
        title: t('log:client.fields.client'),
        dataIndex: 'client_name',
        ellipsis: true,
        render: (value: string, row) => (row.client_os ? `${value} (${row.client_os})` : value),
      },
      {
        title: t('log:client.fields.effect'),
        dataIndex: 'effect',
        render: (_value: unknown, row) => <EffectTag effect={row.effect} />,
      },
      {
        title: t('log:client.fields.ip'),
        dataIndex: 'ip',
        render: (value: string) => value || t('log:none'),
      },
    ],
    {
      level: 100,
      received_at: 180,
      action: 130,
      resource: 260,
      os_user: 130,
      client_name: 200,
      effect: 100,
      ip: 140,
    },
  );

  return (
    <ListPage<ClientLogRow>
      queryKey={clientLogKeys.all}
      fetchPage={({ page, page_size, filters: values }) =>
        fetchClientLogs({ page, page_size, ...clientLogFilterQuery(values) })
      }
      rowKey="id"
      columns={columns}
      filters={filters}
      toolbar={
        <ExportButtons
          exportFile={(format) => exportClientLogs({ ...clientLogFilterQuery(applied), format })}
          fallbackName="ksp-client-log"
          testId="client-log-export"
        />
      }
      keepParams={keepParams}
      testId="client-log"
      rowTestId={(row) => `client-log-row-${row.id}`}
      onRowClick={setOpen}
    >
      {open && <ClientLogDetailDrawer record={open} onClose={() => setOpen(null)} />}
    </ListPage>
  );
}
