import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Card, Table, Tag, Typography } from 'antd';
import type { KadpOperationRow } from '@ksp/contracts';
import { kadpClientKeys, listKadpClientOperations } from '../../api/kadp-client';
import { formatDateTime } from '../../components/date-time';
import { useT } from '../../i18n/i18n';

const PAGE_SIZE = 10;

/** The client's crypto API operations (time, operation, key, result) and their count. */
export function ClientOperations({ id }: { id: string }) {
  const t = useT();
  const [page, setPage] = useState(1);
  const ops = useQuery({
    queryKey: [...kadpClientKeys.detail(id), 'operations', page],
    queryFn: () => listKadpClientOperations(id, page, PAGE_SIZE),
  });
  const total = ops.data?.total ?? 0;
  return (
    <Card
      title={t('kadp:operations.title')}
      size="small"
      extra={
        <Typography.Text data-testid="client-operations-count">
          {t('kadp:operations.count', { count: total })}
        </Typography.Text>
      }
      data-testid="client-operations"
    >
      <Table<KadpOperationRow>
        rowKey="id"
        size="small"
        loading={ops.isLoading}
        dataSource={ops.data?.data ?? []}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: t('kadp:operations.empty') }}
        pagination={{ current: page, pageSize: PAGE_SIZE, total, onChange: setPage, showSizeChanger: false }}
        onRow={(row) => ({ 'data-testid': `client-op-${row.operation}-${row.result}` }) as object}
        columns={[
          { title: t('kadp:operations.time'), dataIndex: 'at', render: (at: string) => formatDateTime(at) },
          {
            title: t('kadp:operations.operation'),
            dataIndex: 'operation',
            render: (op: KadpOperationRow['operation']) => t(`kadp:operations.names.${op}`),
          },
          { title: t('kadp:operations.key'), dataIndex: 'key_name' },
          {
            title: t('kadp:operations.result'),
            dataIndex: 'result',
            render: (result: KadpOperationRow['result']) => (
              <Tag color={result === 'success' ? 'green' : 'red'}>{t(`kadp:operations.${result}`)}</Tag>
            ),
          },
        ]}
      />
    </Card>
  );
}
