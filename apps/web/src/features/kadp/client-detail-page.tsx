import { ArrowLeftOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Flex, Space, Typography } from 'antd';
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
      <Flex wrap gap={8} justify="space-between" align="center">
        <Space wrap>
          <Button icon={<ArrowLeftOutlined />} onClick={back} aria-label={t('kadp:back')} />
          <Typography.Title level={4} style={{ margin: 0 }} data-testid="client-detail-title">
            {row ? t('kadp:detailTitle', { name: row.name }) : ''}
          </Typography.Title>
          {row && <ClientStatusTag status={row.status} />}
        </Space>
        {row && canWrite && <ClientActionButtons row={row} calls={calls} />}
      </Flex>
      {row && <ClientIdentityCards row={row} />}
      {row && <ClientOperations id={row.id} />}
    </Flex>
  );
}
