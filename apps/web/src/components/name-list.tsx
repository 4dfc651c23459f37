import type { ReactNode } from 'react';
import { Empty, Table } from 'antd';

export interface NamedItem {
  id: string;
  name: string;
}

/**
 * A short bordered list of named things (the members of a domain, the holders of a
 * role…), each with an optional action such as "Remove".
 */
export function NameList<T extends NamedItem>({
  items,
  loading,
  emptyText,
  action,
  testId,
}: {
  items: readonly T[];
  loading?: boolean;
  emptyText?: ReactNode;
  action?: (item: T) => ReactNode;
  testId?: string;
}) {
  return (
    <div data-testid={testId}>
      <Table<T>
        rowKey="id"
        size="small"
        bordered
        showHeader={false}
        pagination={false}
        loading={loading}
        dataSource={[...items]}
        scroll={{ y: 320 }}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={emptyText} /> }}
        columns={[
          { key: 'name', dataIndex: 'name' },
          ...(action
            ? [
                {
                  key: 'action',
                  align: 'right' as const,
                  width: 120,
                  render: (_v: unknown, item: T) => action(item),
                },
              ]
            : []),
        ]}
      />
    </div>
  );
}
