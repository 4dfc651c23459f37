import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Flex, Switch, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { api, guardPointTypes, type GuardPointRow, type GuardPointType } from '@ksp/contracts';
import {
  agentClientKeys,
  clientGroupKeys,
  createGuardPoint,
  deleteGuardPoint,
  listGuardPoints,
  setGuardPointEnabled,
  type AgentArea,
} from '../../api/tde-client';
import { listPolicies, tdePolicyKeys } from '../../api/tde-policy';
import { RowActions } from '../../components/columns';
import { useConfirm } from '../../components/confirm-delete';
import { formatDateTime } from '../../components/date-time';
import { FormModal } from '../../components/form-modal';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';

interface GuardPointValues {
  path: string;
  type: GuardPointType;
  policy_id: string;
  enabled: boolean;
}

/**
 * The guard points of a client (its own and its groups', inherited ones read-only here) or of
 * a client group (docs/modules.md#guard-points): add, enable/disable, unguard.
 */
export function GuardPointTable({
  area,
  target,
}: {
  area: AgentArea;
  target: { client_id: string } | { group_id: string };
}) {
  const t = useT();
  const { message } = App.useApp();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  const calls = area === 'cte' ? api.tdeClient : api.rdmClient;
  const canWrite = useCanCall(calls.guardPointCreate);
  const [adding, setAdding] = useState(false);
  const keys = agentClientKeys(area);
  const targetId = 'client_id' in target ? target.client_id : target.group_id;
  const listed = useQuery({
    queryKey: keys.guardPoints(targetId),
    queryFn: () => listGuardPoints(area, target),
  });
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: keys.all });
    await queryClient.invalidateQueries({ queryKey: clientGroupKeys.all });
  };
  // The policies a guard point may take: TDE standard policies, or the RDM policies.
  const policies = useQuery({
    queryKey: [...tdePolicyKeys.all, 'guard-point-options', area],
    queryFn: () => listPolicies(area, { page: 1, page_size: 100 }),
    enabled: adding,
  });
  const policyOptions = [
    { value: '', label: t('tdeClient:gp.noPolicy') },
    ...(policies.data?.data ?? [])
      .filter((p) => area === 'rdm' || p.type === 'standard')
      .map((p) => ({ value: p.id, label: p.name })),
  ];
  // On a client's page, a group's guard point is inherited: it is changed on the group.
  const own = (row: GuardPointRow) => 'group_id' in target || row.origin.kind === 'client';

  const toggle = async (row: GuardPointRow, enabled: boolean) => {
    await setGuardPointEnabled(area, row.id, enabled);
    void message.success(
      t(enabled ? 'tdeClient:gp.enabledDone' : 'tdeClient:gp.disabledDone', { path: row.path }),
    );
    await refresh();
  };
  const unguard = (row: GuardPointRow) =>
    confirm({
      title: t('tdeClient:gp.unguardTitle', { path: row.path }),
      content: t('tdeClient:gp.unguardContent'),
      okText: t('tdeClient:gp.unguard'),
      danger: true,
      testId: 'gp-confirm-unguard',
      onOk: async () => {
        await deleteGuardPoint(area, row.id);
        void message.success(t('tdeClient:gp.unguarded', { path: row.path }));
        await refresh();
      },
    });

  const columns: ColumnsType<GuardPointRow> = [
    {
      title: t('tdeClient:fields.enabled'),
      dataIndex: 'enabled',
      render: (enabled: boolean, row) => (
        <Switch
          size="small"
          checked={enabled}
          disabled={!canWrite || !own(row)}
          onChange={(on) => void toggle(row, on)}
          data-testid={`gp-enabled-${row.path}`}
          aria-label={t('tdeClient:fields.enabled')}
        />
      ),
    },
    {
      title: t('tdeClient:fields.path'),
      dataIndex: 'path',
      render: (path: string) => <Typography.Text code>{path}</Typography.Text>,
    },
    {
      title: t('tdeClient:fields.gpType'),
      dataIndex: 'type',
      render: (type: GuardPointType) => t(`tdeClient:gpTypes.${type}`),
    },
    {
      title: t('tdeClient:fields.policy'),
      dataIndex: 'policy_name',
      render: (name: string | null, row) => name ?? row.policy_id ?? '-',
    },
    {
      title: t('tdeClient:fields.origin'),
      dataIndex: 'origin',
      render: (origin: GuardPointRow['origin']) =>
        origin.kind === 'client' ? (
          <Tag>{t('tdeClient:origin.client')}</Tag>
        ) : (
          <Tag color="blue">{t('tdeClient:origin.group', { name: origin.name })}</Tag>
        ),
    },
    {
      title: t('tdeClient:fields.created'),
      dataIndex: 'created_at',
      render: (v: string) => formatDateTime(v),
    },
    {
      key: 'actions',
      title: '',
      render: (_: unknown, row) =>
        own(row) ? (
          canWrite && (
            <RowActions
              items={[
                {
                  label: t('tdeClient:gp.unguard'),
                  danger: true,
                  onClick: () => unguard(row),
                  testId: `gp-unguard-${row.path}`,
                },
              ]}
            />
          )
        ) : (
          <Typography.Text type="secondary">{t('tdeClient:gp.inherited')}</Typography.Text>
        ),
    },
  ];

  return (
    <Flex vertical gap={12} data-testid="guard-points">
      {canWrite && (
        <Flex justify="flex-end">
          <Button type="primary" onClick={() => setAdding(true)} data-testid="gp-add">
            {t('tdeClient:gp.add')}
          </Button>
        </Flex>
      )}
      <Table<GuardPointRow>
        rowKey="id"
        size="small"
        scroll={{ x: 'max-content' }}
        loading={listed.isLoading}
        dataSource={listed.data?.data ?? []}
        columns={columns}
        pagination={false}
        locale={{ emptyText: t('tdeClient:gp.empty') }}
        onRow={(row) => ({ 'data-testid': `gp-row-${row.path}` }) as React.HTMLAttributes<HTMLElement>}
      />
      <FormModal<GuardPointValues>
        open={adding}
        title={t('tdeClient:gp.addTitle')}
        okTestId="gp-ok"
        initialValues={{ type: 'directory_auto', enabled: true, policy_id: '' }}
        fields={[
          { name: 'path', label: t('tdeClient:fields.path'), placeholder: '/data/secure', testId: 'gp-path' },
          {
            name: 'type',
            label: t('tdeClient:fields.gpType'),
            kind: 'select',
            options: guardPointTypes.map((v) => ({ value: v, label: t(`tdeClient:gpTypes.${v}`) })),
            testId: 'gp-type',
          },
          {
            name: 'policy_id',
            label: t('tdeClient:fields.policyId'),
            extra: t('tdeClient:gp.policyHint'),
            kind: 'select',
            options: policyOptions,
            testId: 'gp-policy',
          },
          { name: 'enabled', label: t('tdeClient:fields.enabled'), kind: 'switch', testId: 'gp-enabled' },
        ]}
        onSubmit={async (values) => {
          const policy = values.policy_id?.trim() ?? '';
          await createGuardPoint(area, {
            ...target,
            path: values.path.trim(),
            type: values.type,
            policy_id: values.type === 'rwp' || policy === '' ? null : policy,
            enabled: values.enabled,
          });
          void message.success(t('tdeClient:gp.created', { path: values.path.trim() }));
          await refresh();
        }}
        onClose={() => setAdding(false)}
      />
    </Flex>
  );
}
