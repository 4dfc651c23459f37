import { useState } from 'react';
import { Checkbox, Flex, Form, Modal, Select } from 'antd';
import { CLEAR_KEY, policyActions, policyEffects } from '@ksp/contracts';
import { useT } from '../../i18n/i18n';
import { emptyRule, type KeyRule, type PolicyDraft, type Rule } from './use-policy-draft';
import type { PolicyOptions } from './use-policy-options';

/** The rule a dialog edits: its place in the list (null: a new one) and its values. */
interface Editing<T> {
  index: number | null;
  rule: T;
}

/** The state of a rule dialog: the rule it edits, if open, and its form. */
export function useRuleEditing<T extends object>() {
  const [editing, setEditing] = useState<Editing<T> | null>(null);
  const [form] = Form.useForm<T>();
  const open = (index: number | null, rule: T) => {
    setEditing({ index, rule });
    form.setFieldsValue(rule);
  };
  return { editing, form, open, close: () => setEditing(null) };
}

type RuleEditing<T extends object> = ReturnType<typeof useRuleEditing<T>>;

/** The list with the dialog's rule put in: appended, or in place of the one edited. */
const putRule = <T,>(list: T[], index: number | null | undefined, rule: T) =>
  index == null ? [...list, rule] : list.map((r, i) => (i === index ? rule : r));

interface RuleModalProps {
  draft: PolicyDraft;
  options: PolicyOptions;
  editor: RuleEditing<Rule>;
}

/** Adds or edits a security rule: the user, process and resource sets and what they may do. */
export function RuleModal({ draft, options, editor }: RuleModalProps) {
  const t = useT();
  const { editing, form } = editor;
  return (
    <Modal
      open={editing !== null}
      title={t('tdePolicy:ruleTitle')}
      okText={t('tdePolicy:actions.ok')}
      cancelText={t('tdePolicy:actions.cancel')}
      okButtonProps={{ 'data-testid': 'rule-ok' }}
      onCancel={editor.close}
      onOk={() => {
        void form.validateFields().then((v) => {
          const rule: Rule = {
            ...emptyRule,
            ...v,
            user_set_id: v.user_set_id ?? null,
            process_set_id: v.process_set_id ?? null,
            resource_set_id: v.resource_set_id ?? null,
          };
          draft.setRules(putRule(draft.rules, editing?.index, rule));
          editor.close();
        });
      }}
      destroyOnHidden
    >
      <Form<Rule> form={form} layout="vertical" preserve={false} initialValues={editing?.rule}>
        {(['user', 'process', 'resource'] as const).map((kind) => (
          <Flex key={kind} gap={12} align="end" wrap>
            <Form.Item
              name={`${kind}_set_id`}
              label={t(`tdePolicy:fields.${kind}Set`)}
              style={{ flex: 1, minWidth: 200 }}
            >
              <Select
                allowClear
                placeholder={t('tdePolicy:fields.any')}
                data-testid={`rule-${kind}-set`}
                options={options.setOptions(kind)}
              />
            </Form.Item>
            <Form.Item name={`exclude_${kind}_set`} valuePropName="checked">
              <Checkbox data-testid={`rule-${kind}-exclude`}>{t('tdePolicy:fields.exclude')}</Checkbox>
            </Form.Item>
          </Flex>
        ))}
        <Form.Item name="actions" label={t('tdePolicy:fields.actions')} rules={[{ required: true }]}>
          <Select
            mode="multiple"
            data-testid="rule-actions"
            options={policyActions.map((a) => ({ value: a, label: a }))}
          />
        </Form.Item>
        <Form.Item name="effects" label={t('tdePolicy:fields.effects')} rules={[{ required: true }]}>
          <Select
            mode="multiple"
            data-testid="rule-effects"
            options={policyEffects
              .filter((e) => draft.type === 'standard' || e !== 'applykey')
              .map((e) => ({ value: e, label: t(`tdePolicy:effects.${e}`) }))}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}

interface KeyRuleModalProps {
  draft: PolicyDraft;
  options: PolicyOptions;
  editor: RuleEditing<KeyRule>;
}

/** Adds a key rule: the resource set and the key (or clear text) its files take. */
export function KeyRuleModal({ draft, options, editor }: KeyRuleModalProps) {
  const t = useT();
  const { editing, form } = editor;
  return (
    <Modal
      open={editing !== null}
      title={t('tdePolicy:keyRuleTitle')}
      okText={t('tdePolicy:actions.ok')}
      cancelText={t('tdePolicy:actions.cancel')}
      okButtonProps={{ 'data-testid': 'key-rule-ok' }}
      onCancel={editor.close}
      onOk={() => {
        void form.validateFields().then((v) => {
          const rule: KeyRule = { resource_set_id: v.resource_set_id ?? null, key_id: v.key_id };
          draft.setKeyRules(putRule(draft.keyRules, editing?.index, rule));
          editor.close();
        });
      }}
      destroyOnHidden
    >
      <Form<KeyRule> form={form} layout="vertical" preserve={false} initialValues={editing?.rule}>
        <Form.Item name="resource_set_id" label={t('tdePolicy:fields.resourceSet')}>
          <Select
            allowClear
            placeholder={t('tdePolicy:fields.allFiles')}
            data-testid="key-rule-resource-set"
            options={options.setOptions('resource')}
          />
        </Form.Item>
        <Form.Item name="key_id" label={t('tdePolicy:fields.key')} rules={[{ required: true }]}>
          <Select
            data-testid="key-rule-key"
            options={[
              { value: CLEAR_KEY, label: t('tdePolicy:fields.clearKey') },
              ...options.keys.map((k) => ({ value: k.id, label: `${k.name} (${k.encryption_mode})` })),
            ]}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
