import { useState } from 'react';
import { SafetyCertificateOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Form, Typography, theme } from 'antd';
import type { SignedIn } from '../../api/session';
import { bridgeAddress, UKEY_PIN_MIN, UkeyLoginError, ukeyLogin } from '../../api/ukey';
import { PasswordInput } from '../../components/password-input';
import { useSiteConfig } from '../../components/use-site-config';
import { useT } from '../../i18n/i18n';

/** What went wrong, in the user's words. */
function failureText(
  error: unknown,
  bridge: string,
  t: ReturnType<typeof useT>,
): { text: string; needsPassword: boolean } {
  if (!(error instanceof UkeyLoginError)) return { text: t('access:ukey.verifyFailed'), needsPassword: true };
  switch (error.stage) {
    case 'bridge':
      return {
        text: error.unreachable
          ? t('access:ukey.bridgeUnreachable', { url: bridge })
          : t('access:ukey.bridgeError', { error: error.message }),
        needsPassword: false,
      };
    case 'challenge':
      return { text: error.message || t('access:ukey.verifyFailed'), needsPassword: true };
    default:
      return { text: t('access:ukey.verifyFailed'), needsPassword: true };
  }
}

/**
 * The second factor after a right password (code 4503): the PIN unlocks the UKEY, which
 * signs the server's one-time challenge through the local bridge; the server verifies the
 * signature and signs the user in.
 */
export function UkeyPanel({
  username,
  onBack,
  onSignedIn,
}: {
  username: string;
  onBack: () => void;
  onSignedIn: (data: SignedIn) => void;
}) {
  const t = useT();
  const { token } = theme.useToken();
  const site = useSiteConfig();
  const bridge = bridgeAddress(site.data);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ text: string; needsPassword: boolean } | null>(null);

  const verify = async ({ pin }: { pin: string }) => {
    setBusy(true);
    setFailure(null);
    // The bridge address comes with the public configuration: wait for it if still loading.
    const address = site.data ? bridge : bridgeAddress((await site.refetch()).data);
    try {
      onSignedIn(await ukeyLogin(username, pin, address));
    } catch (error) {
      setFailure(failureText(error, address, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Flex vertical gap={16} data-testid="ukey-panel">
      <Flex vertical align="center" gap={4}>
        <SafetyCertificateOutlined style={{ fontSize: 40, color: token.colorPrimary }} />
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('auth:ukey.prompt')}
        </Typography.Title>
        <Typography.Text type="secondary">
          {t('access:ukey.signingInAs')} <strong data-testid="ukey-username">{username}</strong>
        </Typography.Text>
      </Flex>
      {failure && (
        <Alert
          type="error"
          showIcon
          title={failure.text}
          description={failure.needsPassword ? t('access:ukey.passwordAgain') : undefined}
          data-testid="ukey-error"
        />
      )}
      {failure?.needsPassword ? null : (
        <Form<{ pin: string }>
          layout="vertical"
          requiredMark={false}
          onFinish={(values) => void verify(values)}
        >
          <Typography.Paragraph type="secondary">{t('access:ukey.insert')}</Typography.Paragraph>
          <Form.Item
            name="pin"
            label={t('access:ukey.pin')}
            rules={[
              { required: true, message: t('access:ukey.pinRequired') },
              { min: UKEY_PIN_MIN, message: t('common:validation.pinMin') },
            ]}
          >
            <PasswordInput autoComplete="off" autoFocus data-testid="ukey-pin" maxLength={64} />
          </Form.Item>
          <Button type="primary" htmlType="submit" block loading={busy} data-testid="ukey-submit">
            {t('access:ukey.verify')}
          </Button>
        </Form>
      )}
      <Button onClick={onBack} block={failure?.needsPassword} data-testid="ukey-back">
        {t('auth:ukey.back')}
      </Button>
    </Flex>
  );
}
