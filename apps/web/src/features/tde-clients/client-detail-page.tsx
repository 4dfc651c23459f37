import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  App,
  Button,
  Card,
  Descriptions,
  Empty,
  Flex,
  List,
  Switch,
  Space,
  Tabs,
  Tag,
  Typography,
} from 'antd';
import { Link, useNavigate, useParams } from 'react-router';
import { api, type TdeClientRow } from '@ksp/contracts';
import {
  agentClientKeys,
  deleteAgentClient,
  fetchAgentClient,
  forceDeleteAgentClient,
  renewAgentClient,
  revokeAgentClient,
  setAgentClientCommunication,
  setAgentClientProfile,
  type AgentArea,
} from '../../api/tde-client';
import { formatDateTime } from '../../components/date-time';
import { FormModal } from '../../components/form-modal';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import {
  ClientActionButtons,
  ClientDetailHeader,
  ClientIdentityCards,
  type ClientActionCalls,
} from '../../components/client-detail';
import { ClientStatusTag } from '../../components/client-status';
import { AuthBinaryTable } from './auth-binaries';
import { GuardPointTable } from './guard-points';
import { LockedTag, useLockAction } from './lock-action';
import { groupDetailPath } from './group-list-page';

/**
 * TDE / RDM › client details (docs/modules.md#tde-and-rdm-clients): the KADP identity and certificate cards
 * and actions, the profile, guard points, groups, authorised binaries, logs and health.
 */
function AgentClientDetailPage({ area }: { area: AgentArea }) {
  const t = useT();
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const calls = area === 'cte' ? api.tdeClient : api.rdmClient;
  const canWrite = useCanCall(calls.revoke);
  const keys = agentClientKeys(area);
  const [editingProfile, setEditingProfile] = useState(false);
  const lock = useLockAction();
  const detail = useQuery({ queryKey: keys.detail(id), queryFn: () => fetchAgentClient(area, id) });
  const row = detail.data;
  const back = () => void navigate(`/${area}/clients/main`);
  const actions: ClientActionCalls = {
    perform: {
      revoke: (cid) => revokeAgentClient(area, cid),
      delete: (cid) => deleteAgentClient(area, cid),
      forceDelete: (cid) => forceDeleteAgentClient(area, cid),
      renew: (cid) => renewAgentClient(area, cid),
    },
    keys,
    back,
  };

  const toggleCommunication = async (client: TdeClientRow, enabled: boolean) => {
    await setAgentClientCommunication(area, client.id, enabled);
    void message.success(
      t(enabled ? 'tdeClient:communication.enabled' : 'tdeClient:communication.disabled', {
        name: client.name,
      }),
    );
    await queryClient.invalidateQueries({ queryKey: keys.all });
  };

  const general = (client: TdeClientRow) => (
    <Flex vertical gap={16}>
      <ClientIdentityCards
        row={client}
        groupNames={client.group_names}
        extra={
          <>
            <Descriptions.Item label={t('tdeClient:fields.communication')}>
              <Switch
                size="small"
                checked={client.communication_enabled}
                disabled={!canWrite}
                onChange={(on) => void toggleCommunication(client, on)}
                data-testid="client-communication"
                aria-label={t('tdeClient:fields.communication')}
              />
            </Descriptions.Item>
            {area === 'rdm' && (
              <>
                <Descriptions.Item label={t('tdeClient:fields.protectionMode')}>
                  <span data-testid="client-protection-mode">
                    {t(`tdeClient:protectionModes.${client.protection_mode ?? 'none'}`)}
                  </span>
                </Descriptions.Item>
                <Descriptions.Item label={t('tdeClient:fields.suspicious')}>
                  <span data-testid="client-suspicious-count">{client.suspicious_24h ?? 0}</span>
                </Descriptions.Item>
              </>
            )}
          </>
        }
      />
      {canWrite && (
        <Flex>
          <Button onClick={() => setEditingProfile(true)} data-testid="client-profile-edit">
            {t('tdeClient:profile.change')}
          </Button>
        </Flex>
      )}
    </Flex>
  );

  const groups = (client: TdeClientRow) =>
    client.groups.length === 0 ? (
      <Empty description={t('tdeClient:group.noGroups')} />
    ) : (
      <List
        bordered
        size="small"
        dataSource={client.groups.map((gid, i) => ({ id: gid, name: client.group_names[i] ?? gid }))}
        renderItem={(g) => (
          <List.Item>
            <Link to={groupDetailPath(g.id)} data-testid={`client-group-${g.name}`}>
              {g.name}
            </Link>
          </List.Item>
        )}
      />
    );

  const health = (client: TdeClientRow) => (
    <Card size="small">
      <Descriptions column={1} bordered size="small">
        <Descriptions.Item label={t('tdeClient:health.status')}>
          <ClientStatusTag status={client.status} />
        </Descriptions.Item>
        <Descriptions.Item label={t('tdeClient:health.lastSeen')}>
          {formatDateTime(client.last_seen_at)}
        </Descriptions.Item>
      </Descriptions>
      <Typography.Paragraph type="secondary" style={{ marginTop: 12 }}>
        {t('tdeClient:health.heartbeat')}
      </Typography.Paragraph>
      <Typography.Paragraph type="secondary">
        {t('tdeClient:health.records')} <Link to="/console/log">{t('tdeClient:health.openLog')}</Link>
      </Typography.Paragraph>
    </Card>
  );

  return (
    <Flex vertical gap={16} data-testid="client-detail">
      <ClientDetailHeader
        row={row}
        onBack={back}
        tags={
          <>
            {row && area === 'cte' && row.client_locked && <LockedTag />}
            {row && area === 'rdm' && (
              <Tag color="purple">{t(`tdeClient:protectionModes.${row.protection_mode ?? 'none'}`)}</Tag>
            )}
          </>
        }
        actions={
          row &&
          canWrite && (
            <Space wrap>
              {area === 'cte' && (
                <Button onClick={() => lock(row)} data-testid="client-lock">
                  {t(row.client_locked ? 'tdeClient:lock.unlock' : 'tdeClient:lock.lock')}
                </Button>
              )}
              <ClientActionButtons row={row} calls={actions} />
            </Space>
          )
        }
      />
      {row && (
        <Tabs
          data-testid="client-tabs"
          items={[
            { key: 'general', label: t('tdeClient:tabs.general'), children: general(row) },
            {
              key: 'guard-points',
              label: t('tdeClient:tabs.guardPoints'),
              children: <GuardPointTable area={area} target={{ client_id: row.id }} />,
            },
            ...(area === 'cte'
              ? [
                  { key: 'groups', label: t('tdeClient:tabs.groups'), children: groups(row) },
                  {
                    key: 'binaries',
                    label: t('tdeClient:tabs.binaries'),
                    children: <AuthBinaryTable target={{ client_id: row.id }} />,
                  },
                ]
              : []),
            { key: 'health', label: t('tdeClient:tabs.health'), children: health(row) },
          ]}
        />
      )}
      <FormModal<{ profile: string }>
        open={editingProfile}
        title={t('tdeClient:profile.title', { name: row?.name ?? '' })}
        okTestId="client-profile-ok"
        initialValues={{ profile: row?.profile ?? '' }}
        fields={[
          {
            name: 'profile',
            label: t('tdeClient:profile.name'),
            placeholder: t('tdeClient:profile.placeholder'),
            testId: 'client-profile-name',
          },
        ]}
        onSubmit={async (values) => {
          if (!row) return;
          const name = values.profile?.trim() ?? '';
          await setAgentClientProfile(area, row.id, name === '' ? null : name);
          void message.success(t('tdeClient:profile.saved', { name: row.name }));
          await queryClient.invalidateQueries({ queryKey: keys.all });
        }}
        onClose={() => setEditingProfile(false)}
      />
    </Flex>
  );
}

export function CteClientDetailPage() {
  return <AgentClientDetailPage area="cte" />;
}

export function RdmClientDetailPage() {
  return <AgentClientDetailPage area="rdm" />;
}
