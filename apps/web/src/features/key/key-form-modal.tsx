import { useQueryClient } from '@tanstack/react-query';
import { App, Descriptions, Form, Input, Radio, Select, Space, Typography } from 'antd';
import type { Rule } from 'antd/es/form';
import {
  algorithmInfo,
  api,
  importFormats,
  type AlgorithmId,
  type ImportFormat,
  type UsageName,
} from '@ksp/contracts';
import { createKey, importKey, keyKeys } from '../../api/key';
import { ModalForm } from '../../components/form-modal';
import { fieldSchema, rulesFromSchema } from '../../components/schema-rules';
import { useT } from '../../i18n/i18n';
import { useAlgorithmCaption, useSecurityLevel } from './key-display';
import { CteInput, LabelsInput, UsageInput } from './key-inputs';
import {
  algorithmGroups,
  algorithmVariant,
  allowedUsages,
  buildCreateBody,
  buildImportBody,
  checkUsage,
  familyLabel,
  importExpectation,
  importLengthProblem,
  importsPublicKey,
  initialKeyForm,
  isPemKey,
  publicUsages,
  initialUsage,
  isBase64,
  labelProblem,
  MAX_LABELS,
  needsProfileChoice,
  profilesOf,
  supportsCte,
  type KeyFormValues,
  type LabelRow,
} from './key-model';
import { SwitchField } from '../../components/switch-field';

export type KeyFormMode = 'create' | 'import';

/** The algorithm select: grouped by family, searchable by id ("ML-DSA-65"). */
function useAlgorithmOptions() {
  const caption = useAlgorithmCaption();
  return algorithmGroups().map((group) => ({
    label: familyLabel(group.family),
    title: familyLabel(group.family),
    options: group.algorithms.map((info) => ({
      value: info.id,
      label: (
        <Space size={8}>
          <span>{info.id}</span>
          <Typography.Text type="secondary">{caption(info.id)}</Typography.Text>
        </Space>
      ),
    })),
  }));
}

/** Read-only facts of the chosen algorithm: family, kind, size or curve, PQC parameter set and level. */
function AlgorithmFacts({ algorithm }: { algorithm: AlgorithmId }) {
  const t = useT();
  const securityLevel = useSecurityLevel();
  const info = algorithmInfo(algorithm);
  const variant = algorithmVariant(algorithm);
  const items = [
    { key: 'family', label: t('keys:form.family'), children: familyLabel(info.family) },
    {
      key: 'kind',
      label: t('keys:form.kind'),
      children: info.kind === 'symmetric' ? t('keys:form.symmetric') : t('keys:form.keyPair'),
    },
    ...(variant.kind === 'pqc'
      ? [
          { key: 'parameterSet', label: t('keys:form.parameterSet'), children: variant.parameterSet },
          {
            key: 'level',
            label: t('keys:form.securityLevel'),
            children: <span data-testid="key-security-level">{securityLevel(algorithm)}</span>,
          },
        ]
      : variant.kind === 'curve'
        ? [{ key: 'curve', label: t('keys:form.curve'), children: variant.curve }]
        : [
            {
              key: 'size',
              label: t('keys:form.size'),
              children: t('keys:algorithm.bits', { bits: variant.bits }),
            },
          ]),
  ];
  return (
    <Descriptions
      size="small"
      bordered
      column={1}
      items={items}
      style={{ marginBottom: 16 }}
      data-testid="key-algorithm-facts"
    />
  );
}

function useImportHint() {
  const t = useT();
  return (algorithm: AlgorithmId, format: ImportFormat | undefined): string => {
    const expectation = importExpectation(algorithm, format);
    switch (expectation.kind) {
      case 'raw':
        return t('keys:hints.raw', { bytes: expectation.bytes });
      case 'raw-range':
        return t('keys:hints.rawRange', { min: expectation.min, max: expectation.max });
      case 'sm2-scalar':
        return t('keys:hints.sm2');
      case 'spki':
        return t('keys:hints.spki', { algorithm });
      case 'pem':
        return t('keys:hints.pem', { algorithm });
      case 'seed':
        return t('keys:hints.seed', { algorithm, bytes: expectation.bytes });
      case 'expanded':
        return t('keys:hints.expanded', { algorithm, bytes: expectation.bytes });
      case 'public':
        return t('keys:hints.public', { algorithm, bytes: expectation.bytes });
      default:
        return t('keys:hints.pkcs8', { algorithm });
    }
  };
}

/** antd rules for the label list (names unique, a value needs a name, bounds). */
export function useLabelRules(): Rule[] {
  const t = useT();
  return [
    {
      validator: (_rule, value: LabelRow[] | undefined) => {
        const problem = labelProblem(value);
        if (!problem) return Promise.resolve();
        const text = {
          keyRequired: t('keys:validation.labelKeyRequired'),
          duplicate: t('keys:validation.labelDuplicate'),
          tooMany: t('keys:validation.labelTooMany', { max: MAX_LABELS }),
          tooLong: t('keys:validation.labelTooLong'),
        }[problem];
        return Promise.reject(new Error(text));
      },
    },
  ];
}

/**
 * Create or import a key. The form only offers what goes together: the usages of the
 * algorithm's profile (RSA and SM2 choose encryption or signing first), TDE attributes
 * for AES, the content length the algorithm needs; the usage mask is checked with the
 * contract's `validateUsage` before anything is sent.
 */
export function KeyFormModal({
  mode,
  open,
  onClose,
}: {
  mode: KeyFormMode;
  open: boolean;
  onClose: () => void;
}) {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<KeyFormValues>();
  const algorithm = Form.useWatch('algorithm', form) ?? 'AES-256';
  const profile = Form.useWatch('profile', form);
  const name = Form.useWatch('name', form) ?? '';
  const format = Form.useWatch('format', form);
  const content = Form.useWatch('content', form);
  const algorithmOptions = useAlgorithmOptions();
  const initial = initialKeyForm();
  const initialValues: KeyFormValues =
    mode === 'import' ? { ...initial, format: importFormats(initial.algorithm)[0] } : initial;
  const importHint = useImportHint();
  const labelRules = useLabelRules();
  const schema = mode === 'import' ? api.key.import.body : api.key.create.body;
  const info = algorithmInfo(algorithm);
  const choosing = needsProfileChoice(algorithm);
  // A public key imported alone only verifies, encrypts, wraps or encapsulates.
  const publicImport = mode === 'import' && importsPublicKey(format, content);
  const usagesOf = (id: AlgorithmId, p: KeyFormValues['profile'], isPublic: boolean) =>
    isPublic ? publicUsages(id, p) : allowedUsages(id, p);
  const allowed = usagesOf(algorithm, profile, publicImport);

  const onValuesChange = (changed: Partial<KeyFormValues>, all: KeyFormValues) => {
    if (changed.algorithm) {
      const next = changed.algorithm;
      form.setFieldsValue({
        ...initialUsage(next),
        cte: supportsCte(next) ? (all.cte ?? null) : null,
        ...(mode === 'import' ? { format: importFormats(next)[0], publicKey: '' } : {}),
      });
      if (mode === 'import' && all.content) void form.validateFields(['content']);
      return;
    }
    // The watched values are still those before this change.
    const isPublic = mode === 'import' && importsPublicKey(all.format, all.content);
    if (changed.profile || isPublic !== publicImport) {
      form.setFieldsValue({ usages: usagesOf(all.algorithm, all.profile, isPublic) });
    }
    if (changed.format && all.content) void form.validateFields(['content']);
  };

  const submit = async (values: KeyFormValues) => {
    const row =
      mode === 'import' ? await importKey(buildImportBody(values)) : await createKey(buildCreateBody(values));
    void message.success(
      t(mode === 'import' ? 'keys:feedback.imported' : 'keys:feedback.created', { name: row.name }),
    );
    await queryClient.invalidateQueries({ queryKey: keyKeys.all });
  };

  const usageRules: Rule[] = [
    {
      validator: (_rule, value: UsageName[] | undefined) => {
        const check = checkUsage(form.getFieldValue('algorithm') as AlgorithmId, value);
        if (check.ok) return Promise.resolve();
        return Promise.reject(
          new Error(
            check.problem === 'empty'
              ? t('keys:validation.usageRequired')
              : t('keys:validation.usageInvalid', { algorithm: form.getFieldValue('algorithm') as string }),
          ),
        );
      },
    },
  ];

  const contentRules: Rule[] = [
    { required: true, whitespace: true, message: t('keys:validation.contentRequired') },
    {
      validator: (_rule, value: string | undefined) => {
        if (!value?.trim()) return Promise.resolve();
        const chosen = form.getFieldValue('format') as ImportFormat | undefined;
        if (chosen === 'pem')
          return isPemKey(value) ? Promise.resolve() : Promise.reject(new Error(t('keys:validation.pem')));
        if (!isBase64(value)) return Promise.reject(new Error(t('keys:validation.base64')));
        const problem = importLengthProblem(form.getFieldValue('algorithm') as AlgorithmId, value, chosen);
        return problem
          ? Promise.reject(new Error(t('keys:validation.contentLength', problem)))
          : Promise.resolve();
      },
    },
  ];

  return (
    <ModalForm<KeyFormValues>
      open={open}
      title={t(mode === 'import' ? 'keys:form.importTitle' : 'keys:form.createTitle')}
      okText={t(mode === 'import' ? 'keys:form.import' : 'keys:form.create')}
      okTestId="key-form-ok"
      formTestId="key-form"
      form={form}
      initialValues={initialValues}
      onValuesChange={onValuesChange}
      onSubmit={submit}
      onClose={onClose}
      width={640}
    >
      <Form.Item
        name="name"
        label={t('keys:form.name')}
        rules={rulesFromSchema(fieldSchema(schema, 'name'), t('keys:form.name'))}
        extra={
          info.kind === 'asymmetric'
            ? t('keys:form.nameHint', { name: name.trim() || `<${t('keys:form.name')}>` })
            : undefined
        }
      >
        <Input maxLength={128} data-testid="key-name" autoComplete="off" />
      </Form.Item>
      <Form.Item
        name="algorithm"
        label={t('keys:form.algorithm')}
        rules={[{ required: true, message: t('keys:validation.algorithmRequired') }]}
      >
        <Select
          options={algorithmOptions}
          showSearch={{ optionFilterProp: 'value' }}
          listHeight={320}
          data-testid="key-algorithm"
        />
      </Form.Item>
      <AlgorithmFacts algorithm={algorithm} />
      {choosing && (
        <Form.Item
          name="profile"
          label={t('keys:form.profile')}
          extra={t('keys:form.profileHint', { family: familyLabel(info.family) })}
          rules={[{ required: true, message: t('keys:validation.profileRequired') }]}
        >
          <Radio.Group
            data-testid="key-profile"
            options={profilesOf(algorithm).map((p) => ({ value: p, label: t(`keys:profiles.${p}`) }))}
          />
        </Form.Item>
      )}
      {allowed.length > 0 && (
        <Form.Item name="usages" label={t('keys:form.usage')} rules={usageRules} required>
          <UsageInput allowed={allowed} />
        </Form.Item>
      )}
      {mode === 'import' && (
        <Form.Item name="format" label={t('keys:form.importFormat')}>
          <Select
            data-testid="key-import-format"
            options={importFormats(algorithm).map((value) => ({
              value,
              label: t(`keys:importFormats.${value}`),
            }))}
          />
        </Form.Item>
      )}
      {mode === 'import' && (
        <Form.Item
          name="content"
          label={t('keys:form.content')}
          extra={importHint(algorithm, format)}
          rules={contentRules}
          required
        >
          <Input.TextArea
            autoSize={{ minRows: 3, maxRows: 8 }}
            spellCheck={false}
            data-testid="key-content"
          />
        </Form.Item>
      )}
      {mode === 'import' && (format === 'seed' || format === 'expanded') && (
        <Form.Item
          name="publicKey"
          label={t('keys:form.publicKeyCheck')}
          extra={t('keys:hints.publicKeyCheck')}
          rules={[
            {
              validator: (_rule, value: string | undefined) =>
                !value?.trim() || isBase64(value)
                  ? Promise.resolve()
                  : Promise.reject(new Error(t('keys:validation.base64'))),
            },
          ]}
        >
          <Input.TextArea
            autoSize={{ minRows: 2, maxRows: 6 }}
            spellCheck={false}
            data-testid="key-public-key"
          />
        </Form.Item>
      )}
      <Form.Item name="state" label={t('keys:form.initialState')}>
        <Radio.Group
          data-testid="key-initial-state"
          options={[
            { value: 'active', label: t('keys:states.in-use') },
            { value: 'pre-active', label: t('keys:states.inactive') },
          ]}
        />
      </Form.Item>
      <Space size={32} wrap>
        <SwitchField
          name="exportable"
          label={t('keys:form.exportable')}
          tooltip={t('keys:form.exportableHint')}
          testId="key-exportable"
        />
        <SwitchField name="deletable" label={t('keys:form.deletable')} testId="key-deletable" />
      </Space>
      <Form.Item
        name="description"
        label={t('keys:form.description')}
        rules={rulesFromSchema(fieldSchema(schema, 'description'), t('keys:form.description'))}
      >
        <Input.TextArea autoSize={{ minRows: 2, maxRows: 6 }} maxLength={512} data-testid="key-description" />
      </Form.Item>
      <Form.Item name="labels" label={t('keys:form.labels')} rules={labelRules}>
        <LabelsInput />
      </Form.Item>
      {supportsCte(algorithm) && (
        <Form.Item name="cte" label={t('keys:form.cte')}>
          <CteInput />
        </Form.Item>
      )}
    </ModalForm>
  );
}
