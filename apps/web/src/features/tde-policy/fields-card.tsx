import type { ReactNode } from 'react';
import { Card, Flex } from 'antd';

/**
 * A card of a policy, element or profile form: its fields side by side, wrapping, then what goes
 * `below` them. Each card but a page's first stands 16 px below the one before.
 */
export function FieldsCard({
  title,
  first = false,
  testId,
  below,
  children,
}: {
  title: string;
  first?: boolean;
  testId?: string;
  below?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card title={title} size="small" style={first ? undefined : { marginTop: 16 }} data-testid={testId}>
      <Flex gap={16} wrap>
        {children}
      </Flex>
      {below}
    </Card>
  );
}
