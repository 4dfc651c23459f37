import { useState } from 'react';
import { ArrowLeftOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Descriptions, Flex, Space, Tag, Typography } from 'antd';
import { useNavigate, useParams } from 'react-router';
import { api, type ClientRow } from '@ksp/contracts';
import {
  deleteKadpClient,
  fetchKadpClient,
  forceDeleteKadpClient,
  kadpClientKeys,
  renewKadpClient,
  revokeKadpClient,
} from '../../api/kadp-client';
import { useConfirm } from '../../components/confirm-delete';
import { formatDateTime } from '../../components/date-time';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { ClientStatusTag } from './client-status';

type Action = 'revoke' | 'delete' | 'forceDelete' | 'renew';

/** KADP › client details: identity, certificate validity; revoke, delete, force delete, renew. */
export default function ClientDetailPage() {
  const t = useT();
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.client.revoke);
  // When the page opened: the certificate's expiry is judged against it (render stays pure).
  const [openedAt] = useState(() => Date.now());
  const detail = useQuery({ queryKey: kadpClientKeys.detail(id), queryFn: () => fetchKadpClient(id) });
  const row = detail.data;
  const back = () => void navigate('/kadp/clients');

  const calls: Record<Action, { perform: (id: string) => Promise<unknown>; done: string; danger: boolean }> =
    {
      revoke: { perform: revokeKadpClient, done: 'kadp:done.revoked', danger: true },
      delete: { perform: deleteKadpClient, done: 'kadp:done.deleted', danger: true },
      forceDelete: { perform: forceDeleteKadpClient, done: 'kadp:done.forceDeleted', danger: true },
      renew: { perform: renewKadpClient, done: 'kadp:done.renewed', danger: false },
    };
  const ask = (client: ClientRow, action: Action) => {
    const { perform, done, danger } = calls[action];
    confirm({
      title: t(`kadp:confirm.${action}`, { name: client.name }),
      content: t(`kadp:confirm.${action}Content`),
      okText: t(`kadp:actions.${action}`),
      danger,
      testId: `client-confirm-${action}`,
      onOk: async () => {
        await perform(client.id);
        void message.success(t(done as 'kadp:done.revoked', { name: client.name }));
        if (action === 'forceDelete') {
          queryClient.removeQueries({ queryKey: kadpClientKeys.detail(client.id) });
          await queryClient.invalidateQueries({ queryKey: kadpClientKeys.list });
          back();
          return;
        }
        await queryClient.invalidateQueries({ queryKey: kadpClientKeys.all });
      },
    });
  };

  const active = row && (row.status === 'healthy' || row.status === 'warning' || row.status === 'error');
  const expired = row ? Date.parse(row.certificate.not_after) <= openedAt : false;

  return (
    <Flex vertical gap={16} data-testid="client-detail">
      <Flex wrap gap={8} justify="space-between" align="center">
        <Space wrap>
          <Button icon={<ArrowLeftOutlined />} onClick={back} aria-label={t('kadp:back')} />
          <Typography.Title level={4} style={{ margin: 0 }} data-testid="client-detail-title">
            {row ? t('kadp:detailTitle', { name: row.name }) : ''}
          </Typography.Title>
          {row && <ClientStatusTag status={row.status} />}
        </Space>
        {row && canWrite && (
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
            <Button
              danger
              type="primary"
              onClick={() => ask(row, 'forceDelete')}
              data-testid="client-force-delete"
            >
              {t('kadp:actions.forceDelete')}
            </Button>
          </Space>
        )}
      </Flex>
      {row && (
        <>
          <Card title={t('kadp:sections.identity')} size="small">
            <Descriptions
              column={{ xs: 1, sm: 1, md: 2 }}
              bordered
              size="small"
              data-testid="client-identity"
            >
              <Descriptions.Item label={t('kadp:fields.name')}>{row.name}</Descriptions.Item>
              <Descriptions.Item label={t('kadp:fields.type')}>
                {t(`kadp:types.${row.type}`)}
              </Descriptions.Item>
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
                {row.groups.length ? row.groups.map((g) => <Tag key={g}>{g}</Tag>) : t('kadp:none')}
              </Descriptions.Item>
              <Descriptions.Item label={t('kadp:fields.token')}>{row.token_name}</Descriptions.Item>
              <Descriptions.Item label={t('kadp:fields.lastSeen')}>
                {formatDateTime(row.last_seen_at)}
              </Descriptions.Item>
              <Descriptions.Item label={t('kadp:fields.registered')}>
                {formatDateTime(row.registered_at)}
              </Descriptions.Item>
            </Descriptions>
          </Card>
          <Card title={t('kadp:sections.certificate')} size="small">
            <Descriptions
              column={{ xs: 1, sm: 1, md: 2 }}
              bordered
              size="small"
              data-testid="client-certificate"
            >
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
      )}
    </Flex>
  );
}
