import type { ReactNode } from 'react';
import { ArrowLeftOutlined } from '@ant-design/icons';
import { Button, Flex, Space, Typography } from 'antd';

/**
 * The head of a detail or editor page: a back arrow, the title (empty while the record
 * loads), tags beside it, and the page's buttons on the right.
 */
export function PageHeader({
  onBack,
  backLabel,
  title,
  titleTestId,
  tags,
  actions,
}: {
  onBack: () => void;
  /** The back arrow's accessible name. */
  backLabel: string;
  title: ReactNode;
  titleTestId: string;
  tags?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <Flex wrap gap={8} justify="space-between" align="center">
      <Space wrap>
        <Button icon={<ArrowLeftOutlined />} onClick={onBack} aria-label={backLabel} />
        <Typography.Title level={4} style={{ margin: 0 }} data-testid={titleTestId}>
          {title}
        </Typography.Title>
        {tags}
      </Space>
      {actions}
    </Flex>
  );
}
