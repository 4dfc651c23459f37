import { PlusOutlined } from '@ant-design/icons';
import { Button, Card, Typography } from 'antd';
import { useT } from '../../i18n/i18n';
import { KeyRuleTable } from './policy-rule-tables';
import type { PolicyDraft } from './use-policy-draft';
import type { PolicyOptions } from './use-policy-options';

interface Props {
  draft: PolicyDraft;
  options: PolicyOptions;
  onAdd: () => void;
}

/** A standard policy's key rules: which key encrypts which resources. */
export function PolicyKeysStep({ draft, options, onAdd }: Props) {
  const t = useT();
  return (
    <Card
      title={t('tdePolicy:fields.keyRules')}
      size="small"
      extra={
        !draft.disabled && (
          <Button icon={<PlusOutlined />} data-testid="key-rule-add" onClick={onAdd}>
            {t('tdePolicy:actions.addKeyRule')}
          </Button>
        )
      }
    >
      <Typography.Paragraph type="secondary">{t('tdePolicy:wizard.keysHint')}</Typography.Paragraph>
      <KeyRuleTable draft={draft} options={options} readOnly={false} />
    </Card>
  );
}
