import type { ReactNode } from 'react';
import { Alert, Flex, Typography } from 'antd';
import { CopyButton } from './copy-button';

/**
 * What the server shows once (a secret, a token), in a once-shown dialog: the warning that it is
 * not shown again, the value whole, `details` under it, and a button copying `copyText` (default
 * the value); `children` go below the button.
 */
export function SecretText({
  warning,
  value,
  copyText,
  details,
  children,
  testIds,
}: {
  warning: ReactNode;
  value: string;
  copyText?: string | undefined;
  details?: ReactNode;
  children?: ReactNode;
  testIds: { box: string; value: string; copy: string };
}) {
  return (
    <Flex vertical gap={12} data-testid={testIds.box}>
      <Alert type="warning" showIcon title={warning} />
      <Typography.Paragraph
        code
        style={{ wordBreak: 'break-all', margin: 0, fontSize: 15 }}
        data-testid={testIds.value}
      >
        {value}
      </Typography.Paragraph>
      {details}
      <Flex>
        <CopyButton text={copyText ?? value} testId={testIds.copy} />
      </Flex>
      {children}
    </Flex>
  );
}
