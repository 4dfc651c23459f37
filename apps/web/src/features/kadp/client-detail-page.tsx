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
  ClientDetailHeader,
  ClientIdentityCards,
  type ClientActionCalls,
} from '../../components/client-detail';
import { useCanCall } from '../../components/permissions';
import { ClientOperations } from './client-operations';

/** KADP › client details: identity, certificate validity; revoke, delete, force delete, renew. */
export default function ClientDetailPage() {
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
      <ClientDetailHeader
        row={row}
        onBack={back}
        actions={row && canWrite && <ClientActionButtons row={row} calls={calls} />}
      />
      {row && <ClientIdentityCards row={row} />}
      {row && <ClientOperations id={row.id} />}
    </Flex>
  );
}
