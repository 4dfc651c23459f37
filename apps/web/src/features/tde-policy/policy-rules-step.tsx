import { PlusOutlined } from '@ant-design/icons';
import { Button, Card, Typography } from 'antd';
import { useT } from '../../i18n/i18n';
import { SecurityRuleTable } from './policy-rule-tables';
import type { PolicyDraft } from './use-policy-draft';
import type { PolicyOptions } from './use-policy-options';

interface Props {
  draft: PolicyDraft;
  options: PolicyOptions;
  onAdd: () => void;
  onEdit: (index: number) => void;
}

/** The security rules of the policy, in the order the agent applies them. */
export function PolicyRulesStep({ draft, options, onAdd, onEdit }: Props) {
  const t = useT();
  return (
    <Card
      title={t('tdePolicy:fields.securityRules')}
      size="small"
      extra={
        !draft.disabled && (
          <Button icon={<PlusOutlined />} data-testid="rule-add" onClick={onAdd}>
            {t('tdePolicy:actions.addRule')}
          </Button>
        )
      }
    >
      <Typography.Paragraph type="secondary">{t('tdePolicy:wizard.rulesHint')}</Typography.Paragraph>
      <SecurityRuleTable draft={draft} options={options} readOnly={false} onEdit={onEdit} />
    </Card>
  );
}
