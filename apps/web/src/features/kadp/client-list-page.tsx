import type { ColumnsType } from 'antd/es/table';
import { useNavigate } from 'react-router';
import type { ClientRow, ClientStatus } from '@ksp/contracts';
import { kadpClientKeys, listKadpClients } from '../../api/kadp-client';
import { ClientList, useClientColumns } from '../../components/client-list';
import { RowActions } from '../../components/columns';
import { useT } from '../../i18n/i18n';
import { ClientStatusTag, clientDetailPath } from './client-status';

/** KADP › clients: the applications enrolled in this domain, with the status bar (docs/modules.md#kadp). */
export default function ClientListPage() {
  const t = useT();
  const navigate = useNavigate();
  const col = useClientColumns<ClientRow>((row) => void navigate(clientDetailPath(row.id)));

  const columns: ColumnsType<ClientRow> = [
    {
      title: t('kadp:fields.status'),
      dataIndex: 'status',
      render: (status: ClientStatus) => <ClientStatusTag status={status} />,
    },
    col.name,
    col.text(t('kadp:fields.host'), 'host'),
    col.text(t('kadp:fields.agentVersion'), 'agent_version'),
    { title: t('kadp:fields.application'), dataIndex: 'token_name' },
    col.text(t('kadp:fields.os'), 'os'),
    ...col.dates,
    col.kit.actions((row) => <RowActions items={[col.details(row)]} />),
  ];

  return (
    <ClientList<ClientRow>
      queryKey={kadpClientKeys.list}
      fetchCounts={() => listKadpClients({ page: 1, page_size: 1 })}
      fetchPage={({ page, page_size, filters }, status) =>
        listKadpClients({ page, page_size, name: filters.name, status })
      }
      columns={columns}
    />
  );
}
