import type { ReactNode } from 'react';
import { Alert, Button, Flex, Typography } from 'antd';
import { CopyButton } from '../../components/copy-button';
import { OnceModal } from '../../components/once-modal';
import { useT } from '../../i18n/i18n';

export interface OnceSecret {
  title: ReactNode;
  secret: string;
  /** More to show under the secret (e.g. how to use it). */
  details?: ReactNode;
  /** What the copy button copies, when not the bare secret. */
  copyText?: string;
}

/**
 * A secret the server shows once (app secret, registration token): the value, a copy
 * button and the warning that it will not be shown again.
 */
export function SecretModal({ value, onClose }: { value: OnceSecret | null; onClose: () => void }) {
  const t = useT();
  return (
    <OnceModal
      open={value !== null}
      title={value?.title}
      onClose={onClose}
      width={600}
      footer={
        <Button type="primary" onClick={onClose} data-testid="secret-close">
          {t('access:secret.saved')}
        </Button>
      }
    >
      {value && (
        <Flex vertical gap={12} data-testid="secret-modal">
          <Alert type="warning" showIcon title={t('access:secret.once')} />
          <Typography.Paragraph
            code
            style={{ wordBreak: 'break-all', margin: 0, fontSize: 15 }}
            data-testid="secret-value"
          >
            {value.secret}
          </Typography.Paragraph>
          {value.details}
          <Flex>
            <CopyButton text={value.copyText ?? value.secret} testId="secret-copy" />
          </Flex>
        </Flex>
      )}
    </OnceModal>
  );
}
