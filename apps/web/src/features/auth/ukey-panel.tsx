import { SafetyCertificateOutlined } from '@ant-design/icons';
import { Button, Result } from 'antd';
import { useT } from '../../i18n/i18n';

/**
 * Shown when the login answers 4503 (MFA on). The Ukey signature login itself
 * (random challenge, sign, verify) arrives with the Ukey support of a later issue.
 */
export function UkeyPanel({ username, onBack }: { username: string; onBack: () => void }) {
  const t = useT();
  return (
    <Result
      data-testid="ukey-panel"
      icon={<SafetyCertificateOutlined />}
      title={t('auth:ukey.prompt')}
      subTitle={
        <>
          <strong>{username}</strong>
          <br />
          {t('auth:ukey.pending')}
        </>
      }
      extra={<Button onClick={onBack}>{t('auth:ukey.back')}</Button>}
    />
  );
}
