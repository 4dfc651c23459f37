import { useState } from 'react';
import { Typography } from 'antd';
import type { ColumnType } from 'antd/es/table';
import { logResults, logSeverities, logSources } from '@ksp/contracts';
import { exportLogs, listLogs, logKeys, type LogRow } from '../../api/log';
import { withWidths } from '../../components/columns';
import { formatDateTime } from '../../components/date-time';
import { ListPage, readListQuery, type ListFilter } from '../../components/list-page';
import { useViewSearchParams } from '../../components/view-activity';
import { useT } from '../../i18n/i18n';
import { LogDetailDrawer } from './log-detail';
import { ExportButtons } from './log-export';
import { logFilterQuery } from './log-filters';
import { SeverityTag } from '../../components/severity-tag';
import { ActionText, ResultTag } from './log-display';
import { TimeFilter } from './log-time-filter';
import { cursorPager } from './cursor-pager';

/**
 * Logs: the server records (the audit trail), newest first, filtered and exported on the server.
 * `keepParams`: the URL params of the page around it (the log page's tab) that the list keeps.
 */
export default function LogPage({ keepParams = [] }: { keepParams?: readonly string[] }) {
  const t = useT();
  const [params] = useViewSearchParams();
  const [open, setOpen] = useState<LogRow | null>(null);
  const [fetchLogs] = useState(() => cursorPager(listLogs));

  const options = <V extends string>(values: readonly V[], label: (value: V) => string) =>
    values.map((value) => ({ value, label: label(value) }));

  const filters: ListFilter[] = [
    {
      name: 'time',
      label: t('log:filters.time'),
      render: (props) => <TimeFilter {...props} />,
    },
    {
      name: 'severity',
      label: t('log:filters.severity'),
      options: options(logSeverities, (value) => t(`log:severities.${value}`)),
      width: 140,
    },
    {
      name: 'result',
      label: t('log:filters.result'),
      options: options(logResults, (value) => t(`log:results.${value}`)),
      width: 120,
    },
    {
      name: 'source',
      label: t('log:filters.source'),
      options: options(logSources, (value) => t(`log:sources.${value}`)),
      width: 150,
    },
    { name: 'action', label: t('log:filters.action'), placeholder: t('log:filters.actionHint'), width: 280 },
    { name: 'username', label: t('log:filters.username') },
    { name: 'ip', label: t('log:filters.ip') },
    { name: 'q', label: t('log:filters.q'), placeholder: t('log:filters.qHint'), width: 220 },
  ];
  const applied = readListQuery(params, filters).filters;

  const columns: ColumnType<LogRow>[] = withWidths<LogRow>(
    [
      {
        title: t('log:fields.severity'),
        dataIndex: 'severity',
        render: (_value: unknown, row) => <SeverityTag severity={row.severity} />,
      },
      {
        title: t('log:fields.at'),
        dataIndex: 'at',
        render: (value: string, row) => (
          <Typography.Link
            onClick={(event) => {
              event.stopPropagation();
              setOpen(row);
            }}
            data-testid="log-open"
          >
            {formatDateTime(value)}
          </Typography.Link>
        ),
      },
      {
        title: t('log:fields.action'),
        dataIndex: 'action',
        render: (_value: unknown, row) => <ActionText record={row} />,
      },
      { title: t('log:fields.target'), dataIndex: 'target', ellipsis: true },
      { title: t('log:fields.username'), dataIndex: 'username', ellipsis: true },
      {
        title: t('log:fields.source'),
        dataIndex: 'source',
        render: (value: LogRow['source']) => t(`log:sources.${value}`),
      },
      {
        title: t('log:fields.result'),
        dataIndex: 'result',
        render: (value: LogRow['result']) => <ResultTag result={value} />,
      },
      {
        title: t('log:fields.ip'),
        dataIndex: 'ip',
        render: (value: string) => value || t('log:none'),
      },
    ],
    { severity: 110, at: 180, action: 240, target: 200, username: 140, source: 140, result: 100, ip: 150 },
  );

  return (
    <ListPage<LogRow>
      queryKey={logKeys.all}
      fetchPage={({ page, page_size, filters: values }) =>
        fetchLogs({ page, page_size, ...logFilterQuery(values) })
      }
      rowKey="id"
      columns={columns}
      filters={filters}
      toolbar={
        <ExportButtons
          exportFile={(format) => exportLogs({ ...logFilterQuery(applied), format })}
          fallbackName="ksp-log"
          testId="log-export"
        />
      }
      keepParams={keepParams}
      testId="log"
      rowTestId={(row) => `log-row-${row.id}`}
      onRowClick={setOpen}
    >
      {open && <LogDetailDrawer record={open} onClose={() => setOpen(null)} />}
    </ListPage>
  );
}
