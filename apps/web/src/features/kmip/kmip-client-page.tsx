import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { App, Flex, Space, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { api, type KmipClientRow } from '@ksp/contracts';
import { deleteKmipClient, kmipKeys, listKmipClients, updateKmipClient } from '../../api/kmip';
import { EllipsisText, RowActions, StatusTag, useColumnKit, withWidths } from '../../components/columns';
import { useConfirm, useConfirmDelete } from '../../components/confirm-delete';
import { formatDateTime } from '../../components/date-time';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { roleName } from '../../i18n/server-labels';
import { CreateKmipClientModal, KmipRenewModal, KmipRoleModal } from './kmip-client-forms';
import { KmipIssuedModal, type IssuedCertificate } from './kmip-issued-modal';
import { KmipListenerCard } from './kmip-listener-card';

type State = KmipClientRow['state'];
const stateColors: Record<State, string> = { active: 'green', disabled: 'orange', revoked: 'red' };

/**
 * Keys › KMIP clients (docs/kmip.md): the KMIP listener of this node, then the domain's KMIP
 * clients, each with a role and a certificate issued from its CSR.
 */
export default function KmipClientPage() {
  const t = useT();
  const kit = useColumnKit<KmipClientRow>();
  const { message } = App.useApp();
  const confirm = useConfirm();
  const confirmDelete = useConfirmDelete();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.kmip.create);
  const [creating, setCreating] = useState(false);
  const [roleOf, setRoleOf] = useState<KmipClientRow | null>(null);
  const [renewing, setRenewing] = useState<KmipClientRow | null>(null);
  const [issued, setIssued] = useState<IssuedCertificate | null>(null);
  // "Expired" is judged against when the page opened (rendering stays pure).
  const [openedAt] = useState(() => Date.now());

  const refresh = () => queryClient.invalidateQueries({ queryKey: kmipKeys.clients });
  const showIssued = async (value: IssuedCertificate) => {
    setIssued(value);
    await refresh();
  };

  const setEnabled = async (row: KmipClientRow, enabled: boolean) => {
    try {
      await updateKmipClient({ id: row.id, enabled });
      void message.success(t(enabled ? 'kmip:enable.done' : 'kmip:disable.done', { name: row.name }));
    } catch {
      // The API client showed the server's reason.
    }
    await refresh();
  };

  const disable = (row: KmipClientRow) =>
    confirm({
      title: t('kmip:disable.title', { name: row.name }),
      content: t('kmip:disable.content'),
      okText: t('kmip:actions.disable'),
      danger: true,
      testId: 'kmip-confirm-disable',
      onOk: () => setEnabled(row, false),
    });

  const remove = (row: KmipClientRow) =>
    confirmDelete({
      title: t('kmip:delete.title', { name: row.name }),
      content: t('kmip:delete.content'),
      remove: () => deleteKmipClient(row.id),
      refresh,
      testId: 'kmip-confirm-delete',
    });

  const stateLabels: Record<State, string> = {
    active: t('kmip:states.active'),
    disabled: t('kmip:states.disabled'),
    revoked: t('kmip:states.revoked'),
  };

  const columns: ColumnsType<KmipClientRow> = [
    kit.name(t('kmip:fields.name'), 'name'),
    {
      title: t('kmip:fields.state'),
      dataIndex: 'state',
      render: (state: State, row) => (
        <StatusTag
          value={state}
          colors={stateColors}
          labels={stateLabels}
          testId={`kmip-state-${row.name}`}
        />
      ),
    },
    {
      title: t('kmip:fields.role'),
      dataIndex: 'role_name',
      ellipsis: { showTitle: false },
      render: (name: string) =>
        name ? (
          <EllipsisText text={roleName(name)} />
        ) : (
          <Typography.Text type="secondary">{t('kmip:noRole')}</Typography.Text>
        ),
    },
    {
      title: t('kmip:fields.expiry'),
      key: 'expiry',
      render: (_: unknown, row) => (
        <Space size={4} wrap>
          <span>{formatDateTime(row.certificate.not_after)}</span>
          {Date.parse(row.certificate.not_after) <= openedAt && <Tag color="red">{t('kmip:expired')}</Tag>}
        </Space>
      ),
    },
    {
      title: t('kmip:fields.serial'),
      key: 'serial',
      ellipsis: { showTitle: false },
      render: (_: unknown, row) => (
        <Typography.Text style={{ fontFamily: 'monospace' }}>
          <EllipsisText text={row.certificate.serial} />
        </Typography.Text>
      ),
    },
    {
      title: t('kmip:fields.lastSeen'),
      dataIndex: 'last_seen_at',
      render: (value: string | null) =>
        value ? formatDateTime(value) : <Typography.Text type="secondary">{t('kmip:never')}</Typography.Text>,
    },
    kit.time(t('kmip:fields.registered'), 'registered_at'),
  ];

  if (canWrite) {
    columns.push(
      kit.actions((row) => {
        const live = row.state !== 'revoked';
        return (
          <RowActions
            items={[
              {
                label: t('kmip:actions.changeRole'),
                onClick: () => setRoleOf(row),
                show: live,
                testId: `kmip-role-${row.name}`,
              },
              {
                label: t('kmip:actions.disable'),
                onClick: () => disable(row),
                show: row.state === 'active',
                testId: `kmip-disable-${row.name}`,
              },
              {
                label: t('kmip:actions.enable'),
                onClick: () => void setEnabled(row, true),
                show: row.state === 'disabled',
                testId: `kmip-enable-${row.name}`,
              },
              {
                label: t('kmip:actions.renew'),
                onClick: () => setRenewing(row),
                show: live,
                testId: `kmip-renew-${row.name}`,
              },
              {
                label: t('common:actions.delete'),
                onClick: () => remove(row),
                danger: true,
                testId: `kmip-delete-${row.name}`,
              },
            ]}
          />
        );
      }),
    );
  }

  // Every column sized: the table scrolls by their sum under the pinned name and actions; at
  // 1280 px the name, state, role, expiry and the four actions show without scrolling.
  const sized = withWidths(columns, {
    name: 180,
    state: 100,
    role_name: 150,
    expiry: 180,
    serial: 170,
    last_seen_at: 170,
    registered_at: 170,
    operations: 310,
  });

  return (
    <Flex vertical gap={16}>
      <KmipListenerCard />
      <ListPage<KmipClientRow>
        queryKey={kmipKeys.clients}
        testId="kmip"
        fetchPage={({ page, page_size, filters }) => listKmipClients({ page, page_size, name: filters.name })}
        rowKey="id"
        rowTestId={(row) => `kmip-row-${row.name}`}
        columns={sized}
        filters={[{ name: 'name', label: t('kmip:fields.name') }]}
        toolbar={canWrite && <ListAddButton onClick={() => setCreating(true)} testId="kmip-add" />}
      >
        <CreateKmipClientModal open={creating} onClose={() => setCreating(false)} onIssued={showIssued} />
        <KmipRoleModal
          row={roleOf}
          onClose={() => setRoleOf(null)}
          onSaved={async (row) => {
            void message.success(t('common:feedback.saved'));
            await refresh();
            return row;
          }}
        />
        <KmipRenewModal row={renewing} onClose={() => setRenewing(null)} onIssued={showIssued} />
        <KmipIssuedModal value={issued} onClose={() => setIssued(null)} />
      </ListPage>
    </Flex>
  );
}
