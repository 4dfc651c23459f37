import { useQuery } from '@tanstack/react-query';
import { Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useNavigate } from 'react-router';
import type { ClientStatus, ProtectionMode, TdeClientRow } from '@ksp/contracts';
import {
  agentClientKeys,
  clientGroupKeys,
  listAgentClients,
  listClientGroups,
  type AgentArea,
} from '../../api/tde-client';
import { ClientList, useClientColumns } from '../../components/client-list';
import { RowActions } from '../../components/columns';
import { useT } from '../../i18n/i18n';
import { ClientStatusTag } from '../../components/client-status';
import { useCanCall } from '../../components/permissions';
import { api } from '@ksp/contracts';
import { LockedTag, useLockAction } from './lock-action';

/** The detail page of a TDE or RDM client (docs/modules.md#console-routes). */
export const agentClientDetailPath = (area: AgentArea, id: string) =>
  `/${area}/clients/clients-details/${id}`;

/**
 * TDE / RDM › clients (docs/modules.md#tde-and-rdm-clients): the status bar of the KADP page, the agents of
 * this domain with their groups, guard points and (RDM) protection mode and suspicious count.
 */
function AgentClientListPage({ area }: { area: AgentArea }) {
  const t = useT();
  const navigate = useNavigate();
  const keys = agentClientKeys(area);
  const lock = useLockAction();
  const canLock = useCanCall(api.tdeClient.lock) && area === 'cte';
  const col = useClientColumns<TdeClientRow>((row) => void navigate(agentClientDetailPath(area, row.id)));
  const groups = useQuery({
    queryKey: [...clientGroupKeys.list, 'options'],
    queryFn: () => listClientGroups({ page: 1, page_size: 1000 }),
    enabled: area === 'cte',
  }).data?.data;

  const columns: ColumnsType<TdeClientRow> = [
    {
      title: t('kadp:fields.status'),
      dataIndex: 'status',
      render: (status: ClientStatus, row: TdeClientRow) => (
        <>
          <ClientStatusTag status={status} />
          {area === 'cte' && row.client_locked && <LockedTag />}
        </>
      ),
    },
    col.name,
    col.text(t('kadp:fields.host'), 'host'),
    col.text(t('kadp:fields.os'), 'os'),
    col.text(t('kadp:fields.agentVersion'), 'agent_version'),
    col.text(t('kadp:fields.mac'), 'mac'),
    {
      title: t('kadp:fields.profile'),
      dataIndex: 'profile',
      render: (v: string | null) => v ?? t('kadp:defaultProfile'),
    },
    ...(area === 'cte'
      ? [
          {
            title: t('tdeClient:fields.groups'),
            dataIndex: 'group_names',
            render: (names: string[]) => (names.length ? names.map((n) => <Tag key={n}>{n}</Tag>) : '-'),
          },
        ]
      : [
          {
            title: t('tdeClient:fields.protectionMode'),
            dataIndex: 'protection_mode',
            render: (mode: ProtectionMode | undefined) => t(`tdeClient:protectionModes.${mode ?? 'none'}`),
          },
          {
            title: t('tdeClient:fields.suspicious'),
            dataIndex: 'suspicious_24h',
            render: (n: number | undefined) =>
              n ? (
                <Tag color="red" data-testid="client-suspicious">
                  {n}
                </Tag>
              ) : (
                0
              ),
          },
        ]),
    { title: t('tdeClient:fields.guardPoints'), dataIndex: 'guard_points' },
    ...col.dates,
    col.kit.actions((row) => (
      <RowActions
        items={[
          col.details(row),
          ...(canLock
            ? [
                {
                  label: t(row.client_locked ? 'tdeClient:lock.unlock' : 'tdeClient:lock.lock'),
                  onClick: () => lock(row),
                  testId: `client-lock-${row.name}`,
                },
              ]
            : []),
        ]}
      />
    )),
  ];

  return (
    <ClientList<TdeClientRow>
      queryKey={keys.list}
      fetchCounts={() => listAgentClients(area, { page: 1, page_size: 1 })}
      fetchPage={({ page, page_size, filters }, status) =>
        listAgentClients(area, {
          page,
          page_size,
          name: filters.name,
          os: filters.os,
          group: filters.group || undefined,
          status,
        })
      }
      columns={columns}
      filters={[
        { name: 'os', label: t('tdeClient:fields.os') },
        ...(area === 'cte'
          ? [
              {
                name: 'group',
                label: t('tdeClient:fields.groups'),
                options: (groups ?? []).map((g) => ({ value: g.id, label: g.name })),
              },
            ]
          : []),
      ]}
    />
  );
}

export function CteClientListPage() {
  return <AgentClientListPage area="cte" />;
}

export function RdmClientListPage() {
  return <AgentClientListPage area="rdm" />;
}
