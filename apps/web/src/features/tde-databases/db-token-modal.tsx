import { Alert, Button, Flex, Modal, Typography } from 'antd';
import { CopyButton } from '../../components/copy-button';
import { useT } from '../../i18n/i18n';

/** A database client's new access token, as a create or a regeneration answered it. */
export interface IssuedToken {
  title: string;
  token: string;
}

/**
 * The token the server answers once (KSP keeps only its hash): the value, a copy button, the
 * warning that it is not shown again, and where the database puts it. The page renders it only
 * while it has a token, so closing it takes the token out of the page at once (a closing antd
 * modal would keep its content in the page until its animation ends).
 */
export function DbTokenModal({ value, onClose }: { value: IssuedToken; onClose: () => void }) {
  const t = useT();
  return (
    <Modal
      open
      title={value.title}
      onCancel={onClose}
      mask={{ closable: false }}
      width={640}
      footer={
        <Button type="primary" onClick={onClose} data-testid="db-token-done">
          {t('tdeDatabase:token.done')}
        </Button>
      }
    >
      <Flex vertical gap={12} data-testid="db-token">
        <Alert type="warning" showIcon title={t('tdeDatabase:token.once')} />
        <Typography.Paragraph
          code
          style={{ wordBreak: 'break-all', margin: 0, fontSize: 15 }}
          data-testid="db-token-value"
        >
          {value.token}
        </Typography.Paragraph>
        <Flex>
          <CopyButton text={value.token} testId="db-token-copy" />
        </Flex>
        <Typography.Text type="secondary">{t('tdeDatabase:token.use')}</Typography.Text>
      </Flex>
    </Modal>
  );
}
