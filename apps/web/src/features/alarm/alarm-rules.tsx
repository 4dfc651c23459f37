import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { App, Flex, Tag, Tooltip, Typography } from 'antd';
import type { ColumnType } from 'antd/es/table';
import { api, type AlarmRule } from '@ksp/contracts';
import {
  alarmKeys,
  createAlarmRule,
  deleteAlarmRules,
  listAlarmRules,
  updateAlarmRule,
} from '../../api/alarm';
import { RowActions, useColumnKit, withWidths } from '../../components/columns';
import { useConfirmDelete } from '../../components/confirm-delete';
import { formatDateTime } from '../../components/date-time';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { SeverityTag } from '../../components/severity-tag';
import { useDuration } from './alarm-display';
import { AlarmRuleForm } from './alarm-rule-form';
import { createBody, updateBody, type AlarmRuleFormValues } from './alarm-values';

const widths = {
  name: 170,
  enabled: 90,
  condition: 300,
  threshold: 150,
  severity: 110,
  reach: 160,
  last_raised_at: 180,
  operations: 140,
};

/** The condition in words: records, action, result, lowest severity. */
function Condition({ rule }: { rule: AlarmRule }) {
  const t = useT();
  return (
    <Flex wrap gap={4} data-testid={`alarm-rule-condition-${rule.name}`}>
      <Tag style={{ marginInlineEnd: 0 }}>{t(`alarm:streams.${rule.stream}`)}</Tag>
      <Typography.Text code>{rule.action ?? t('alarm:anyAction')}</Typography.Text>
      {rule.result && <Tag style={{ marginInlineEnd: 0 }}>{t(`alarm:results.${rule.result}`)}</Tag>}
      {rule.min_severity && (
        <Tag style={{ marginInlineEnd: 0 }}>≥ {t(`log:severities.${rule.min_severity}`)}</Tag>
      )}
    </Flex>
  );
}

/** The alarm rules: what raises an alarm, with add, edit and delete for those who may write. */
export function AlarmRules({ keepParams }: { keepParams?: readonly string[] }) {
  const t = useT();
  const kit = useColumnKit<AlarmRule>();
  const { message } = App.useApp();
  const confirmDelete = useConfirmDelete();
  const queryClient = useQueryClient();
  const duration = useDuration();
  const canWrite = useCanCall(api.alarm.ruleCreate);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<AlarmRule | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: alarmKeys.rules });
  const save = async (work: () => Promise<unknown>) => {
    await work();
    void message.success(t('common:feedback.saved'));
    await refresh();
  };
  const remove = (row: AlarmRule) =>
    confirmDelete({
      title: t('alarm:rules.deleteConfirm', { name: row.name }),
      remove: () => deleteAlarmRules([row.id]),
      refresh,
      testId: 'alarm-rule-confirm-delete',
    });

  const columns: ColumnType<AlarmRule>[] = [
    kit.name(t('alarm:ruleFields.name'), 'name'),
    {
      title: t('alarm:ruleFields.enabled'),
      dataIndex: 'enabled',
      render: (enabled: boolean) => (
        <Tag color={enabled ? 'green' : 'default'}>{enabled ? t('common:yes') : t('common:no')}</Tag>
      ),
    },
    {
      title: t('alarm:ruleFields.condition'),
      key: 'condition',
      render: (_value: unknown, row) => <Condition rule={row} />,
    },
    {
      title: t('alarm:ruleFields.threshold'),
      dataIndex: 'threshold',
      render: (_value: unknown, row) => `${row.threshold} / ${duration(row.interval_seconds)}`,
    },
    {
      title: t('alarm:ruleFields.severity'),
      dataIndex: 'severity',
      render: (_value: unknown, row) => <SeverityTag severity={row.severity} />,
    },
    {
      title: t('alarm:ruleFields.reach'),
      key: 'reach',
      render: (_value: unknown, row) => (
        <Tooltip title={row.domain_name}>
          {row.all_domains ? t('alarm:reach.all') : row.domain_name || t('alarm:reach.own')}
        </Tooltip>
      ),
    },
    {
      title: t('alarm:ruleFields.lastRaised'),
      dataIndex: 'last_raised_at',
      render: (value: string | null) =>
        value ? (
          formatDateTime(value)
        ) : (
          <Typography.Text type="secondary">{t('alarm:never')}</Typography.Text>
        ),
    },
  ];
  if (canWrite)
    columns.push(
      kit.actions((row) => (
        <RowActions
          items={[
            kit.edit(() => setEditing(row), `alarm-rule-edit-${row.name}`),
            kit.remove(() => remove(row), `alarm-rule-delete-${row.name}`),
          ]}
        />
      )),
    );

  return (
    <Flex vertical gap={16}>
      <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
        {t('alarm:rules.intro')} {canWrite ? '' : t('alarm:rules.readOnly')}
      </Typography.Paragraph>
      <ListPage<AlarmRule>
        queryKey={alarmKeys.rules}
        fetchPage={({ page, page_size }) => listAlarmRules({ page, page_size })}
        rowKey="id"
        columns={withWidths(columns, widths)}
        toolbar={canWrite && <ListAddButton onClick={() => setCreating(true)} testId="alarm-rule-add" />}
        onDelete={canWrite ? (ids) => deleteAlarmRules(ids) : undefined}
        testId="alarm-rule"
        rowTestId={(row) => `alarm-rule-row-${row.name}`}
        keepParams={keepParams}
      />
      {creating && (
        <AlarmRuleForm
          onSubmit={(values: AlarmRuleFormValues) => save(() => createAlarmRule(createBody(values)))}
          onClose={() => setCreating(false)}
        />
      )}
      {editing && (
        <AlarmRuleForm
          key={editing.id}
          stored={editing}
          onSubmit={(values: AlarmRuleFormValues) =>
            save(() => updateAlarmRule(updateBody(editing.id, values)))
          }
          onClose={() => setEditing(null)}
        />
      )}
    </Flex>
  );
}
