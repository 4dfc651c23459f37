import { Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useNavigate } from 'react-router';
import { clientStatuses, type ClientRow, type ClientStatus } from '@ksp/contracts';
import { kadpClientKeys, listKadpClients } from '../../api/kadp-client';
import { RowActions, useColumnKit } from '../../components/columns';
import { ListPage } from '../../components/list-page';
import { ClientStatusBar } from '../../components/client-status-bar';
import { useT } from '../../i18n/i18n';
import { ClientStatusTag, clientDetailPath } from './client-status';

/** KADP › clients: the applications enrolled in this domain, with the status bar (docs/modules.md#kadp). */
export default function ClientListPage() {
  const t = useT();
  const kit = useColumnKit<ClientRow>();
  const navigate = useNavigate();
  const open = (row: ClientRow) => void navigate(clientDetailPath(row.id));
  const statusOptions = clientStatuses.map((v) => ({ value: v, label: t(`kadp:statuses.${v}`) }));

  const columns: ColumnsType<ClientRow> = [
    {
      title: t('kadp:fields.status'),
      dataIndex: 'status',
      render: (status: ClientStatus) => <ClientStatusTag status={status} />,
    },
    kit.name(t('kadp:fields.name'), 'name', (name: string, row) => (
      <Typography.Link strong onClick={() => open(row)} data-testid={`client-open-${name}`}>
        {name}
      </Typography.Link>
    )),
    { title: t('kadp:fields.host'), dataIndex: 'host', render: (v: string) => v || '-' },
    { title: t('kadp:fields.agentVersion'), dataIndex: 'agent_version', render: (v: string) => v || '-' },
    { title: t('kadp:fields.application'), dataIndex: 'token_name' },
    { title: t('kadp:fields.os'), dataIndex: 'os', render: (v: string) => v || '-' },
    kit.time(t('kadp:fields.lastSeen'), 'last_seen_at'),
    kit.time(t('kadp:fields.registered'), 'registered_at'),
    kit.actions((row) => (
      <RowActions
        items={[
          {
            label: t('kadp:actions.details'),
            onClick: () => open(row),
            testId: `client-details-${row.name}`,
          },
        ]}
      />
    )),
  ];

  return (
    <>
      <ClientStatusBar
        queryKey={kadpClientKeys.list}
        fetchCounts={() => listKadpClients({ page: 1, page_size: 1 })}
      />
      <ListPage<ClientRow>
        queryKey={kadpClientKeys.list}
        testId="client"
        fetchPage={({ page, page_size, filters }) =>
          listKadpClients({
            page,
            page_size,
            name: filters.name,
            status: clientStatuses.find((s) => s === filters.status),
          })
        }
        rowKey="id"
        rowTestId={(row) => `client-row-${row.name}`}
        columns={columns}
        filters={[
          { name: 'name', label: t('kadp:fields.name') },
          { name: 'status', label: t('kadp:fields.status'), options: statusOptions },
        ]}
      />
    </>
  );
}
