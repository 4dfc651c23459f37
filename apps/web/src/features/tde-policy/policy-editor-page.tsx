import type { ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Flex, Form, Grid, Steps, Tag } from 'antd';
import { useNavigate } from 'react-router';
import { CLEAR_KEY } from '@ksp/contracts';
import { deletePolicy, tdePolicyKeys } from '../../api/tde-policy';
import { useConfirmDelete } from '../../components/confirm-delete';
import { recordPlaceholder } from '../../components/not-found';
import { PageHeader } from '../../components/page-header';
import { useT } from '../../i18n/i18n';
import { PolicyGeneralStep } from './policy-general-step';
import { PolicyKeysStep } from './policy-keys-step';
import { PolicyRdmStep } from './policy-rdm-step';
import { PolicyReviewStep } from './policy-review-step';
import { KeyRuleModal, RuleModal, useRuleEditing } from './policy-rule-modals';
import { PolicyRulesStep } from './policy-rules-step';
import type { PolicyStep } from './policy-wizard';
import { emptyRule, usePolicyDraft, type General, type KeyRule, type Rule } from './use-policy-draft';
import { usePolicyOptions } from './use-policy-options';

/**
 * TDE / RDM › create a policy, or its details, as a wizard (docs/modules.md#policies): general → security
 * rules → key rules (standard) or protection settings (RDM) → review and save. Next checks the
 * step's fields; a refusal of the server brings the user back to the step (and field) it names.
 */
export default function PolicyEditorPage() {
  const t = useT();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const confirmDelete = useConfirmDelete();
  const draft = usePolicyDraft();
  const { area, paths, id, detail, row, form, canWrite, disabled, steps, step, current, stepError } = draft;
  const options = usePolicyOptions(area, draft.type, row);
  const ruleEditor = useRuleEditing<Rule>();
  const keyEditor = useRuleEditing<KeyRule>();
  const narrow = !Grid.useBreakpoint().lg;
  const back = () => void navigate(paths.list);

  const stepBody: Record<PolicyStep, () => ReactNode> = {
    general: () => <PolicyGeneralStep draft={draft} />,
    rdm: () => <PolicyRdmStep options={options} />,
    rules: () => (
      <PolicyRulesStep
        draft={draft}
        options={options}
        onAdd={() => ruleEditor.open(null, emptyRule)}
        onEdit={(index) => ruleEditor.open(index, draft.rules[index]!)}
      />
    ),
    keys: () => (
      <PolicyKeysStep
        draft={draft}
        options={options}
        onAdd={() => keyEditor.open(null, { resource_set_id: null, key_id: CLEAR_KEY })}
      />
    ),
    review: () => <PolicyReviewStep draft={draft} options={options} />,
  };
  const last = current === steps.length - 1;
  // A new policy walks forward step by step; an existing one can jump to any step.
  const open = (index: number) => Boolean(id) || index <= draft.reached;

  // An existing policy: the wizard waits for it. Its steps checked against an empty form would
  // refuse a jump made while it loads.
  const placeholder =
    id &&
    recordPlaceholder(detail, {
      title: t('tdePolicy:policies.notFound'),
      extra: <Button onClick={back}>{t('tdePolicy:policies.back')}</Button>,
    });
  if (placeholder) return placeholder;

  return (
    <Flex vertical gap={16} data-testid="policy-editor">
      <PageHeader
        onBack={back}
        backLabel={t('tdePolicy:policies.back')}
        titleTestId="policy-title"
        title={
          row
            ? t('tdePolicy:policies.detailTitle', { name: row.name })
            : id
              ? ''
              : t('tdePolicy:policies.createTitle')
        }
        tags={
          <>
            {row && (
              <Tag data-testid="policy-revision">
                {t('tdePolicy:fields.revision')} {row.revision}
              </Tag>
            )}
            {row && (
              <Tag>
                {t('tdePolicy:fields.guardPoints')} {row.guard_points}
              </Tag>
            )}
          </>
        }
        actions={
          row &&
          canWrite && (
            <Button
              danger
              data-testid="policy-delete"
              onClick={() =>
                confirmDelete({
                  title: t('tdePolicy:policies.deleteTitle', { name: row.name }),
                  remove: async () => {
                    await deletePolicy(area, row.id);
                    back();
                  },
                  refresh: () => queryClient.invalidateQueries({ queryKey: tdePolicyKeys.policies }),
                  testId: 'policy-confirm-delete',
                })
              }
            >
              {t('tdePolicy:actions.delete')}
            </Button>
          )
        }
      />
      <Steps
        size="small"
        orientation={narrow ? 'vertical' : 'horizontal'}
        current={current}
        data-testid="policy-steps"
        onChange={(index) => void draft.goTo(index)}
        items={steps.map((s, index) => ({
          title: <span data-testid={`policy-step-${s}`}>{t(`tdePolicy:wizard.steps.${s}`)}</span>,
          disabled: !open(index),
          status: stepError?.step === s ? 'error' : undefined,
        }))}
      />
      <Form<General>
        form={form}
        layout="vertical"
        disabled={disabled}
        initialValues={{
          type: area === 'rdm' ? 'rdm' : 'standard',
          learn_mode: false,
          restrict_update: false,
          rdm_mode: 'audit',
          trusted_process_set_ids: [],
          threshold_files: 100,
          threshold_window_s: 10,
        }}
      >
        {stepError?.step === step && (
          <Alert
            type="error"
            showIcon
            style={{ marginBottom: 16 }}
            data-testid="policy-step-error"
            title={stepError.message}
          />
        )}
        {stepBody[step]()}
      </Form>
      <Flex justify="space-between" gap={8} wrap>
        <Button
          data-testid="policy-prev"
          disabled={current === 0}
          onClick={() => draft.setCurrent(current - 1)}
        >
          {t('tdePolicy:wizard.prev')}
        </Button>
        {!last && (
          <Button type="primary" data-testid="policy-next" onClick={() => void draft.goTo(current + 1)}>
            {t('tdePolicy:wizard.next')}
          </Button>
        )}
        {last && canWrite && (
          <Button
            type="primary"
            data-testid="policy-save"
            {...draft.submit.buttonProps}
            onClick={() => void draft.save(form.getFieldsValue(true) as General)}
          >
            {t('tdePolicy:actions.save')}
          </Button>
        )}
      </Flex>

      <RuleModal draft={draft} options={options} editor={ruleEditor} />
      <KeyRuleModal draft={draft} options={options} editor={keyEditor} />
    </Flex>
  );
}
