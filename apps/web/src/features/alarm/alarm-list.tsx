import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Flex, Tag, Typography } from 'antd';
import type { ColumnType } from 'antd/es/table';
import { alarmSeverities, alarmStates, api, type Alarm } from '@ksp/contracts';
import { acknowledgeAlarms, alarmKeys, listAlarms } from '../../api/alarm';
import { withWidths } from '../../components/columns';
import { formatDateTime } from '../../components/date-time';
import { ListPage, type ListFilter } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { SeverityTag } from '../../components/severity-tag';
import { CountedText } from './alarm-display';

const widths = {
  severity: 110,
  state: 120,
  raised_at: 180,
  rule_name: 200,
  domain_name: 140,
  count: 200,
  acknowledged_by: 240,
  operations: 130,
};

/**
 * The alarms the rules raised, newest first (every domain's from the root domain), with their
 * state; an open one is acknowledged from its row. Filters and page are in the URL.
 */
export function AlarmList({ keepParams }: { keepParams?: readonly string[] }) {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const canAcknowledge = useCanCall(api.alarm.acknowledge);
  const [busy, setBusy] = useState<string | null>(null);

  const acknowledge = async (row: Alarm) => {
    setBusy(row.id);
    try {
      await acknowledgeAlarms([row.id]);
      void message.success(t('alarm:acknowledgedDone'));
    } catch {
      // The API client showed the server's reason.
    } finally {
      setBusy(null);
      await queryClient.invalidateQueries({ queryKey: alarmKeys.all });
    }
  };

  const filters: ListFilter[] = [
    {
      name: 'state',
      label: t('alarm:filters.state'),
      options: alarmStates.map((value) => ({ value, label: t(`alarm:states.${value}`) })),
      width: 150,
    },
    {
      name: 'severity',
      label: t('alarm:filters.severity'),
      options: alarmSeverities.map((value) => ({ value, label: t(`log:severities.${value}`) })),
      width: 140,
    },
  ];

  const columns: ColumnType<Alarm>[] = [
    {
      title: t('alarm:fields.severity'),
      dataIndex: 'severity',
      render: (_value: unknown, row) => <SeverityTag severity={row.severity} />,
    },
    {
      title: t('alarm:fields.state'),
      dataIndex: 'state',
      render: (state: Alarm['state']) => (
        <Tag color={state === 'open' ? 'red' : 'default'} data-testid="alarm-state" data-state={state}>
          {t(`alarm:states.${state}`)}
        </Tag>
      ),
    },
    {
      title: t('alarm:fields.raisedAt'),
      dataIndex: 'raised_at',
      render: (value: string) => formatDateTime(value),
    },
    { title: t('alarm:fields.rule'), dataIndex: 'rule_name', ellipsis: true },
    { title: t('alarm:fields.domain'), dataIndex: 'domain_name', ellipsis: true },
    {
      title: t('alarm:fields.counted'),
      dataIndex: 'count',
      render: (_value: unknown, row) => <CountedText alarm={row} />,
    },
    {
      title: t('alarm:fields.acknowledged'),
      dataIndex: 'acknowledged_by',
      render: (_value: unknown, row) =>
        row.acknowledged_by ? (
          t('alarm:acknowledgedBy', {
            name: row.acknowledged_by,
            time: formatDateTime(row.acknowledged_at),
          })
        ) : (
          <Typography.Text type="secondary">-</Typography.Text>
        ),
    },
  ];
  if (canAcknowledge)
    columns.push({
      title: t('common:actions.operations'),
      key: 'operations',
      render: (_value: unknown, row) =>
        row.state === 'open' ? (
          <Button
            size="small"
            loading={busy === row.id}
            disabled={busy !== null && busy !== row.id}
            onClick={(event) => {
              event.stopPropagation();
              void acknowledge(row);
            }}
            data-testid={`alarm-ack-${row.id}`}
          >
            {t('alarm:acknowledge')}
          </Button>
        ) : null,
    });

  return (
    <Flex vertical gap={16}>
      <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
        {t('alarm:list.intro')}
      </Typography.Paragraph>
      <ListPage<Alarm>
        queryKey={alarmKeys.alarms}
        fetchPage={({ page, page_size, filters: values }) =>
          listAlarms({
            page,
            page_size,
            state: alarmStates.find((value) => value === values.state) ?? 'all',
            ...(alarmSeverities.find((value) => value === values.severity)
              ? { severity: alarmSeverities.find((value) => value === values.severity) }
              : {}),
          })
        }
        rowKey="id"
        columns={withWidths(columns, widths)}
        filters={filters}
        testId="alarm"
        rowTestId={(row) => `alarm-row-${row.id}`}
        keepParams={keepParams}
      />
    </Flex>
  );
}
