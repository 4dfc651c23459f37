import { Alert, Flex, Input, Typography } from 'antd';
import { useT } from '../../i18n/i18n';
import { isWellFormedSetupCode } from './setup-code';

/** The one-time setup code input, shown on first run when the server asks for one. */
export function SetupCodeField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const t = useT();
  const malformed = value.trim() !== '' && !isWellFormedSetupCode(value);
  return (
    <Flex vertical gap={8}>
      <Alert type="info" showIcon title={t('system:setupCode.hint')} />
      <Typography.Text strong>{t('system:setupCode.label')}</Typography.Text>
      <Input
        value={value}
        onChange={(event) => onChange(event.target.value)}
        status={malformed ? 'error' : undefined}
        placeholder={t('system:setupCode.placeholder')}
        autoComplete="off"
        spellCheck={false}
        data-testid="setup-code"
      />
      {malformed && <Typography.Text type="danger">{t('system:setupCode.invalid')}</Typography.Text>}
    </Flex>
  );
}
