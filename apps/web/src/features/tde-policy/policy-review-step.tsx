import type { ReactNode } from 'react';
import { Card, Descriptions, Flex, Grid, Tag } from 'antd';
import { useT } from '../../i18n/i18n';
import { KeyRuleTable, SecurityRuleTable } from './policy-rule-tables';
import type { General, PolicyDraft } from './use-policy-draft';
import type { PolicyOptions } from './use-policy-options';

/** The last step: the whole policy as it will be saved. */
export function PolicyReviewStep({ draft, options }: { draft: PolicyDraft; options: PolicyOptions }) {
  const t = useT();
  const narrow = !Grid.useBreakpoint().lg;
  const { type } = draft;
  const g = draft.form.getFieldsValue(true) as General;
  const yesNo = (v: boolean) => t(v ? 'common:yes' : 'common:no');
  const items: { key: string; label: string; children: ReactNode }[] = [
    { key: 'name', label: t('tdePolicy:fields.name'), children: g.name },
    { key: 'type', label: t('tdePolicy:fields.type'), children: t(`tdePolicy:types.${type}`) },
    { key: 'description', label: t('tdePolicy:fields.description'), children: g.description || '—' },
    { key: 'learn_mode', label: t('tdePolicy:fields.learnMode'), children: yesNo(Boolean(g.learn_mode)) },
    {
      key: 'restrict_update',
      label: t('tdePolicy:fields.restrictUpdate'),
      children: yesNo(Boolean(g.restrict_update)),
    },
  ];
  if (type === 'rdm')
    items.push(
      {
        key: 'rdm_mode',
        label: t('tdePolicy:fields.rdmMode'),
        children: t(`tdePolicy:modes.${g.rdm_mode}`),
      },
      {
        key: 'trusted',
        label: t('tdePolicy:fields.trustedProcesses'),
        children: (g.trusted_process_set_ids ?? []).length
          ? (g.trusted_process_set_ids ?? []).map((s) => <Tag key={s}>{options.setName(s)}</Tag>)
          : '—',
      },
      {
        key: 'threshold',
        label: t('tdePolicy:wizard.threshold'),
        children: t('tdePolicy:wizard.thresholdValue', {
          files: g.threshold_files,
          seconds: g.threshold_window_s,
        }),
      },
    );
  return (
    <Flex vertical gap={16} data-testid="policy-review">
      <Card title={t('tdePolicy:sections.general')} size="small">
        <Descriptions
          size="small"
          column={narrow ? 1 : 2}
          items={items.map((i) => ({
            ...i,
            children: <span data-testid={`review-${i.key}`}>{i.children}</span>,
          }))}
        />
      </Card>
      <Card title={t('tdePolicy:fields.securityRules')} size="small">
        <SecurityRuleTable draft={draft} options={options} readOnly />
      </Card>
      {type === 'standard' && (
        <Card title={t('tdePolicy:fields.keyRules')} size="small">
          <KeyRuleTable draft={draft} options={options} readOnly />
        </Card>
      )}
    </Flex>
  );
}
