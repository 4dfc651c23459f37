import type { ReactNode } from 'react';
import { Descriptions, Drawer, Grid, Skeleton, type DescriptionsProps } from 'antd';

/**
 * A record's every field in a side drawer (full width on a narrow screen): a bordered
 * one-column list, then what `children` adds under it (PEMs, JSON). A skeleton shows while
 * `record` is still loading.
 */
export function DetailDrawer<T>({
  record,
  title,
  extra,
  items,
  children,
  testId,
  onClose,
}: {
  record: T | undefined;
  title: (record: T) => ReactNode;
  /** The header's buttons. */
  extra?: (record: T) => ReactNode;
  items: (record: T) => DescriptionsProps['items'];
  children?: (record: T) => ReactNode;
  testId: string;
  onClose: () => void;
}) {
  const screens = Grid.useBreakpoint();
  return (
    <Drawer
      open
      onClose={onClose}
      size={screens.lg ? 720 : '100%'}
      title={record && title(record)}
      extra={record && extra?.(record)}
      data-testid={testId}
    >
      {record === undefined ? (
        <Skeleton active />
      ) : (
        <>
          <Descriptions size="small" bordered column={1} items={items(record)} />
          {children?.(record)}
        </>
      )}
    </Drawer>
  );
}
