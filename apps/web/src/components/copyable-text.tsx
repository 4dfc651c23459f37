import type { ReactNode } from 'react';
import { Flex, Input, Typography } from 'antd';
import { CopyButton } from './copy-button';

/** A long text (PEM, Base64) shown read-only in monospace, with a copy button beside its label. */
export function CopyableText({
  label,
  value,
  testId,
  maxRows = 10,
}: {
  label: ReactNode;
  value: string;
  testId: string;
  maxRows?: number;
}) {
  return (
    <Flex vertical gap={4} style={{ marginTop: 12 }}>
      <Flex justify="space-between" align="center" wrap gap={8}>
        <Typography.Text strong>{label}</Typography.Text>
        <CopyButton text={value} testId={`${testId}-copy`} />
      </Flex>
      <Input.TextArea
        readOnly
        value={value}
        autoSize={{ minRows: 3, maxRows }}
        spellCheck={false}
        style={{ fontFamily: 'monospace', fontSize: 12, wordBreak: 'break-all' }}
        data-testid={testId}
      />
    </Flex>
  );
}
