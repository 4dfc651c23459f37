import { useQuery } from '@tanstack/react-query';
import { Flex } from 'antd';
import { useNavigate, useParams } from 'react-router';
import { api } from '@ksp/contracts';
import {
  deleteKadpClient,
  fetchKadpClient,
  forceDeleteKadpClient,
  kadpClientKeys,
  renewKadpClient,
  revokeKadpClient,
} from '../../api/kadp-client';
import {
  ClientActionButtons,
  ClientIdentityCards,
  type ClientActionCalls,
} from '../../components/client-detail';
import { useCanCall } from '../../components/permissions';
import { PageHeader } from '../../components/page-header';
import { useT } from '../../i18n/i18n';
import { ClientStatusTag } from './client-status';
import { ClientOperations } from './client-operations';

/** KADP › client details: identity, certificate validity; revoke, delete, force delete, renew. */
export default function ClientDetailPage() {
  const t = useT();
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const canWrite = useCanCall(api.client.revoke);
  const detail = useQuery({ queryKey: kadpClientKeys.detail(id), queryFn: () => fetchKadpClient(id) });
  const row = detail.data;
  const back = () => void navigate('/kadp/clients');
  const calls: ClientActionCalls = {
    perform: {
      revoke: revokeKadpClient,
      delete: deleteKadpClient,
      forceDelete: forceDeleteKadpClient,
      renew: renewKadpClient,
    },
    keys: kadpClientKeys,
    back,
  };

  return (
    <Flex vertical gap={16} data-testid="client-detail">
      <PageHeader
        onBack={back}
        backLabel={t('kadp:back')}
        titleTestId="client-detail-title"
        title={row ? t('kadp:detailTitle', { name: row.name }) : ''}
        tags={row && <ClientStatusTag status={row.status} />}
        actions={row && canWrite && <ClientActionButtons row={row} calls={calls} />}
      />
      {row && <ClientIdentityCards row={row} />}
      {row && <ClientOperations id={row.id} />}
    </Flex>
  );
}
