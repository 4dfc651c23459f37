import { useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Descriptions, Space, Tag, Typography } from 'antd';
import type { ClientRow } from '@ksp/contracts';
import { useT } from '../i18n/i18n';
import { ClientStatusTag } from './client-status';
import { useConfirm } from './confirm-delete';
import { formatDateTime } from './date-time';
import { PageHeader } from './page-header';

/** The parts of a client's detail page the KADP, TDE and RDM sub-consoles share. */
type Action = 'revoke' | 'delete' | 'forceDelete' | 'renew';

/** How a sub-console acts on its clients (KADP here; TDE and RDM reuse the same buttons). */
export interface ClientActionCalls {
  perform: Record<Action, (id: string) => Promise<unknown>>;
  keys: { all: readonly unknown[]; list: readonly unknown[]; detail: (id: string) => readonly unknown[] };
  /** Where force delete returns to (the list). */
  back: () => void;
}

/**
 * The head of a client's detail page: back to the list, the client's name (empty while it
 * loads), its status and any `tags` beside it, the page's buttons on the right.
 */
export function ClientDetailHeader({
  row,
  onBack,
  tags,
  actions,
}: {
  row: Pick<ClientRow, 'name' | 'status'> | undefined;
  onBack: () => void;
  tags?: ReactNode;
  actions?: ReactNode;
}) {
  const t = useT();
  return (
    <PageHeader
      onBack={onBack}
      backLabel={t('kadp:back')}
      titleTestId="client-detail-title"
      title={row ? t('kadp:detailTitle', { name: row.name }) : ''}
      tags={
        row && (
          <>
            <ClientStatusTag status={row.status} />
            {tags}
          </>
        )
      }
      actions={actions}
    />
  );
}

/** Renew, revoke, delete and force delete, each confirmed, as buttons for a client. */
export function ClientActionButtons({ row, calls }: { row: ClientRow; calls: ClientActionCalls }) {
  const t = useT();
  const { message } = App.useApp();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  const done: Record<Action, { done: string; danger: boolean }> = {
    revoke: { done: 'kadp:done.revoked', danger: true },
    delete: { done: 'kadp:done.deleted', danger: true },
    forceDelete: { done: 'kadp:done.forceDeleted', danger: true },
    renew: { done: 'kadp:done.renewed', danger: false },
  };
  const ask = (client: ClientRow, action: Action) => {
    const { done: doneKey, danger } = done[action];
    confirm({
      title: t(`kadp:confirm.${action}`, { name: client.name }),
      content: t(`kadp:confirm.${action}Content`),
      okText: t(`kadp:actions.${action}`),
      danger,
      testId: `client-confirm-${action}`,
      onOk: async () => {
        await calls.perform[action](client.id);
        void message.success(t(doneKey as 'kadp:done.revoked', { name: client.name }));
        if (action === 'forceDelete') {
          queryClient.removeQueries({ queryKey: calls.keys.detail(client.id) });
          await queryClient.invalidateQueries({ queryKey: calls.keys.list });
          calls.back();
          return;
        }
        await queryClient.invalidateQueries({ queryKey: calls.keys.all });
      },
    });
  };
  const active = row.status === 'healthy' || row.status === 'warning' || row.status === 'error';
  return (
    <Space wrap>
      {active && (
        <Button onClick={() => ask(row, 'renew')} data-testid="client-renew">
          {t('kadp:actions.renew')}
        </Button>
      )}
      {active && (
        <Button danger onClick={() => ask(row, 'revoke')} data-testid="client-revoke">
          {t('kadp:actions.revoke')}
        </Button>
      )}
      {row.status !== 'deleted' && (
        <Button danger onClick={() => ask(row, 'delete')} data-testid="client-delete">
          {t('kadp:actions.delete')}
        </Button>
      )}
      <Button danger type="primary" onClick={() => ask(row, 'forceDelete')} data-testid="client-force-delete">
        {t('kadp:actions.forceDelete')}
      </Button>
    </Space>
  );
}

/**
 * A client's identity and certificate cards. `groupNames` shows names instead of ids;
 * `extra` adds rows to the identity (the TDE and RDM pages' own facts).
 */
export function ClientIdentityCards({
  row,
  groupNames,
  extra,
}: {
  row: ClientRow;
  groupNames?: string[];
  extra?: ReactNode;
}) {
  const t = useT();
  // When the page opened: the certificate's expiry is judged against it (render stays pure).
  const [openedAt] = useState(() => Date.now());
  const expired = Date.parse(row.certificate.not_after) <= openedAt;
  const groups = groupNames ?? row.groups;
  return (
    <>
      <Card title={t('kadp:sections.identity')} size="small">
        <Descriptions column={{ xs: 1, sm: 1, md: 2 }} bordered size="small" data-testid="client-identity">
          <Descriptions.Item label={t('kadp:fields.name')}>{row.name}</Descriptions.Item>
          <Descriptions.Item label={t('kadp:fields.type')}>{t(`kadp:types.${row.type}`)}</Descriptions.Item>
          <Descriptions.Item label={t('kadp:fields.status')}>
            <Space wrap>
              <ClientStatusTag status={row.status} />
              {row.status === 'deleted' && (
                <Typography.Text type="secondary">
                  {row.delete_acknowledged ? t('kadp:deleteAcknowledged') : t('kadp:deletePending')}
                </Typography.Text>
              )}
            </Space>
          </Descriptions.Item>
          <Descriptions.Item label={t('kadp:fields.host')}>{row.host || '-'}</Descriptions.Item>
          <Descriptions.Item label={t('kadp:fields.os')}>{row.os || '-'}</Descriptions.Item>
          <Descriptions.Item label={t('kadp:fields.agentVersion')}>
            {row.agent_version || '-'}
          </Descriptions.Item>
          <Descriptions.Item label={t('kadp:fields.mac')}>{row.mac || '-'}</Descriptions.Item>
          <Descriptions.Item label={t('kadp:fields.profile')}>
            {row.profile ?? t('kadp:defaultProfile')}
          </Descriptions.Item>
          <Descriptions.Item label={t('kadp:fields.groups')}>
            {groups.length ? groups.map((g) => <Tag key={g}>{g}</Tag>) : t('kadp:none')}
          </Descriptions.Item>
          <Descriptions.Item label={t('kadp:fields.token')}>{row.token_name}</Descriptions.Item>
          <Descriptions.Item label={t('kadp:fields.lastSeen')}>
            {formatDateTime(row.last_seen_at)}
          </Descriptions.Item>
          <Descriptions.Item label={t('kadp:fields.registered')}>
            {formatDateTime(row.registered_at)}
          </Descriptions.Item>
          {extra}
        </Descriptions>
      </Card>
      <Card title={t('kadp:sections.certificate')} size="small">
        <Descriptions column={{ xs: 1, sm: 1, md: 2 }} bordered size="small" data-testid="client-certificate">
          <Descriptions.Item label={t('kadp:fields.serial')}>
            <Typography.Text code copyable style={{ wordBreak: 'break-all' }}>
              {row.certificate.serial}
            </Typography.Text>
          </Descriptions.Item>
          <Descriptions.Item label={t('kadp:fields.ca')}>{row.certificate.ca_name}</Descriptions.Item>
          <Descriptions.Item label={t('kadp:fields.notBefore')}>
            {formatDateTime(row.certificate.not_before)}
          </Descriptions.Item>
          <Descriptions.Item label={t('kadp:fields.notAfter')}>
            <Space wrap>
              {formatDateTime(row.certificate.not_after)}
              {row.certificate.revoked && <Tag color="red">{t('kadp:certRevoked')}</Tag>}
              {!row.certificate.revoked && expired && <Tag color="orange">{t('kadp:certExpired')}</Tag>}
            </Space>
          </Descriptions.Item>
        </Descriptions>
      </Card>
    </>
  );
}
