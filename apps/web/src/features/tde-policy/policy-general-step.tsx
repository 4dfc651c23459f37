import { Flex, Form, Input, Select, Switch } from 'antd';
import { api, policyTypes } from '@ksp/contracts';
import { limitsAt } from '../../components/schema-limits';
import { useT } from '../../i18n/i18n';
import { FieldsCard } from './fields-card';
import type { PolicyDraft } from './use-policy-draft';

const NAME = limitsAt(api.tdePolicy.policyCreate.body!, ['name']);
const DESCRIPTION = limitsAt(api.tdePolicy.policyCreate.body!, ['description']);

/** The wizard's first step: the policy's name, type, description and switches. */
export function PolicyGeneralStep({ draft }: { draft: PolicyDraft }) {
  const t = useT();
  const { id, area, disabled } = draft;
  return (
    <FieldsCard
      title={t('tdePolicy:sections.general')}
      first
      below={
        <Flex gap={24} wrap>
          <Form.Item name="learn_mode" label={t('tdePolicy:fields.learnMode')} valuePropName="checked">
            <Switch data-testid="policy-learn-mode" />
          </Form.Item>
          <Form.Item
            name="restrict_update"
            label={t('tdePolicy:fields.restrictUpdate')}
            valuePropName="checked"
          >
            <Switch data-testid="policy-restrict-update" />
          </Form.Item>
        </Flex>
      }
    >
      <Form.Item
        name="name"
        label={t('tdePolicy:fields.name')}
        rules={[{ required: true, whitespace: true, max: NAME.max }]}
        style={{ minWidth: 240, flex: 1 }}
      >
        <Input data-testid="policy-name" maxLength={NAME.max} />
      </Form.Item>
      <Form.Item
        name="type"
        label={t('tdePolicy:fields.type')}
        style={{ minWidth: 160 }}
        extra={id ? t('tdePolicy:wizard.typeLocked') : undefined}
      >
        <Select
          data-testid="policy-type"
          disabled={Boolean(id) || area === 'rdm' || disabled}
          options={policyTypes.map((v) => ({ value: v, label: t(`tdePolicy:types.${v}`) }))}
        />
      </Form.Item>
      <Form.Item
        name="description"
        label={t('tdePolicy:fields.description')}
        rules={[{ max: DESCRIPTION.max }]}
        style={{ minWidth: 240, flex: 2 }}
      >
        <Input data-testid="policy-description" maxLength={DESCRIPTION.max} />
      </Form.Item>
    </FieldsCard>
  );
}
