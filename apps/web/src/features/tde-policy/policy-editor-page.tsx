import { useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import { ArrowDownOutlined, ArrowLeftOutlined, ArrowUpOutlined, PlusOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Checkbox,
  Descriptions,
  Flex,
  Form,
  Grid,
  Input,
  InputNumber,
  Modal,
  Select,
  Space,
  Steps,
  Switch,
  Table,
  Tag,
  theme,
  Typography,
} from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useNavigate, useParams } from 'react-router';
import {
  api,
  CLEAR_KEY,
  policyActions,
  policyEffects,
  policyTypes,
  RDM_THRESHOLD,
  rdmModes,
  type PolicyAction,
  type PolicyDetail,
  type PolicyEffect,
  type PolicyElementKind,
  type PolicyType,
} from '@ksp/contracts';
import {
  createPolicy,
  deletePolicy,
  fetchPolicy,
  listElements,
  listKeyOptions,
  tdePolicyKeys,
  updatePolicy,
} from '../../api/tde-policy';
import { ApiError } from '../../api/api-error';
import { useConfirmDelete } from '../../components/confirm-delete';
import { recordPlaceholder } from '../../components/not-found';
import { useCanCall } from '../../components/permissions';
import { useSubmit } from '../../components/use-submit';
import { useT } from '../../i18n/i18n';
import { policyPaths, usePolicyArea } from './area';
import { fieldsOfStep, stepOfError, stepsOf, type PolicyStep, type StepError } from './policy-wizard';

interface Rule {
  user_set_id: string | null;
  process_set_id: string | null;
  resource_set_id: string | null;
  exclude_user_set: boolean;
  exclude_process_set: boolean;
  exclude_resource_set: boolean;
  actions: PolicyAction[];
  effects: PolicyEffect[];
}
interface KeyRule {
  resource_set_id: string | null;
  key_id: string;
}
interface General {
  name: string;
  description?: string;
  type: PolicyType;
  learn_mode: boolean;
  restrict_update: boolean;
  rdm_mode: 'audit' | 'block';
  trusted_process_set_ids: string[];
  threshold_files: number;
  threshold_window_s: number;
}

const emptyRule: Rule = {
  user_set_id: null,
  process_set_id: null,
  resource_set_id: null,
  exclude_user_set: false,
  exclude_process_set: false,
  exclude_resource_set: false,
  actions: ['all_ops'],
  effects: ['permit'],
};

const move = <T,>(list: T[], index: number, by: -1 | 1): T[] => {
  const next = [...list];
  const [item] = next.splice(index, 1);
  next.splice(index + by, 0, item as T);
  return next;
};

function rulesOf(d: PolicyDetail): Rule[] {
  return d.security_rules.map((r) => ({
    user_set_id: r.user_set_id,
    process_set_id: r.process_set_id,
    resource_set_id: r.resource_set_id,
    exclude_user_set: r.exclude_user_set,
    exclude_process_set: r.exclude_process_set,
    exclude_resource_set: r.exclude_resource_set,
    actions: r.actions,
    effects: r.effects,
  }));
}

/**
 * TDE / RDM › create a policy, or its details, as a wizard (docs/modules.md#policies): general → security
 * rules → key rules (standard) or protection settings (RDM) → review and save. Next checks the
 * step's fields; a refusal of the server brings the user back to the step (and field) it names.
 */
export default function PolicyEditorPage() {
  const t = useT();
  const area = usePolicyArea();
  const paths = policyPaths(area);
  const { id } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { message } = App.useApp();
  const confirmDelete = useConfirmDelete();
  const submit = useSubmit();
  const canWrite = useCanCall(area === 'rdm' ? api.rdmPolicy.policyUpdate : api.tdePolicy.policyUpdate);
  const [form] = Form.useForm<General>();
  // The rules as edited; null: as loaded (none for a new policy).
  const [editedRules, setEditedRules] = useState<Rule[] | null>(null);
  const [editedKeyRules, setEditedKeyRules] = useState<KeyRule[] | null>(null);
  const [editing, setEditing] = useState<{ index: number | null; rule: Rule } | null>(null);
  const [editingKey, setEditingKey] = useState<{ index: number | null; rule: KeyRule } | null>(null);
  const [ruleForm] = Form.useForm<Rule>();
  const [keyForm] = Form.useForm<KeyRule>();
  // The wizard: the step shown, the furthest step reached (a new policy), a refusal to show.
  const [current, setCurrent] = useState(0);
  const [reached, setReached] = useState(0);
  const [stepError, setStepError] = useState<StepError | null>(null);
  const narrow = !Grid.useBreakpoint().lg;
  // A rule list changed after a refusal: the row it named may have moved, so the mark goes.
  const setRules = (list: Rule[]) => {
    setEditedRules(list);
    setStepError((e) => (e?.step === 'rules' ? null : e));
  };
  const setKeyRules = (list: KeyRule[]) => {
    setEditedKeyRules(list);
    setStepError((e) => (e?.step === 'keys' ? null : e));
  };
  const { token } = theme.useToken();

  const detail = useQuery({
    queryKey: tdePolicyKeys.policy(id ?? ''),
    queryFn: () => fetchPolicy(area, id ?? ''),
    enabled: Boolean(id),
  });
  const row = detail.data;
  const rules = editedRules ?? (row ? rulesOf(row) : []);
  const keyRules =
    editedKeyRules ??
    (row ? row.key_rules.map((k) => ({ resource_set_id: k.resource_set_id, key_id: k.key_id })) : []);
  const watchedType = Form.useWatch<PolicyType | undefined>('type', { form, preserve: true });
  const type: PolicyType = watchedType ?? row?.type ?? (area === 'rdm' ? 'rdm' : 'standard');
  const steps = stepsOf(type);
  const step: PolicyStep = steps[current] ?? 'general';
  const sets =
    useQuery({
      queryKey: [...tdePolicyKeys.elements, area, 'all-options'],
      queryFn: () => listElements(area, { page: 1, page_size: 1000 }),
    }).data?.data ?? [];
  const keys =
    useQuery({
      queryKey: tdePolicyKeys.keys,
      queryFn: listKeyOptions,
      enabled: area === 'cte' && type === 'standard',
    }).data ?? [];
  const setOptions = (kind: PolicyElementKind) =>
    sets.filter((s) => s.kind === kind).map((s) => ({ value: s.id, label: s.name }));
  const setName = (setId: string | null) =>
    setId ? (sets.find((s) => s.id === setId)?.name ?? setId) : null;
  const keyName = (keyId: string) =>
    keyId === CLEAR_KEY
      ? t('tdePolicy:fields.clearKey')
      : (keys.find((k) => k.id === keyId)?.name ??
        row?.key_rules.find((k) => k.key_id === keyId)?.key_name ??
        keyId);

  useEffect(() => {
    if (!row) return;
    form.setFieldsValue({
      name: row.name,
      description: row.description,
      type: row.type,
      learn_mode: row.learn_mode,
      restrict_update: row.restrict_update,
      rdm_mode: row.rdm?.mode ?? 'audit',
      trusted_process_set_ids: row.rdm?.trusted_process_set_ids ?? [],
      threshold_files: row.rdm?.threshold.files ?? 100,
      threshold_window_s: row.rdm?.threshold.window_s ?? 10,
    });
  }, [row, form]);

  const back = () => void navigate(paths.list);
  const disabled = !canWrite;

  // A field error of the server shows once the step holding the field is on screen.
  useEffect(() => {
    if (stepError?.field && stepError.step === step)
      form.setFields([{ name: stepError.field as keyof General, errors: [stepError.message] }]);
  }, [stepError, step, form]);

  /** Checks the fields of the step shown; true when they pass. */
  const validStep = async () => {
    try {
      await form.validateFields(fieldsOfStep[step] as (keyof General)[]);
      return true;
    } catch {
      return false;
    }
  };
  const goTo = async (index: number) => {
    if (index > current && !(await validStep())) return;
    setCurrent(index);
    setReached((r) => Math.max(r, index));
  };

  const save = (g: General) =>
    submit.run(async () => {
      setStepError(null);
      const body = {
        name: g.name.trim(),
        description: (g.description ?? '').trim(),
        learn_mode: Boolean(g.learn_mode),
        restrict_update: Boolean(g.restrict_update),
        security_rules: rules,
        key_rules: type === 'standard' ? keyRules : [],
        rdm:
          type === 'rdm'
            ? {
                mode: g.rdm_mode,
                trusted_process_set_ids: g.trusted_process_set_ids ?? [],
                threshold: { files: g.threshold_files, window_s: g.threshold_window_s },
              }
            : null,
      };
      let saved: PolicyDetail;
      try {
        saved = id ? await updatePolicy(area, { id, ...body }) : await createPolicy(area, { ...body, type });
      } catch (error) {
        if (error instanceof ApiError && error.code !== 0) {
          const where = stepOfError(error.code, error.message, steps);
          setStepError(where);
          setCurrent(Math.max(0, steps.indexOf(where.step)));
        }
        throw error;
      }
      void message.success(t('tdePolicy:policies.saved', { name: saved.name, revision: saved.revision }));
      await queryClient.invalidateQueries({ queryKey: tdePolicyKeys.all });
      if (!id) {
        // The saved policy opens as an existing one: on its first step.
        setCurrent(0);
        void navigate(paths.detail(saved.id), { replace: true });
      }
    });

  const setTag = (setId: string | null, exclude: boolean) =>
    setId ? (
      <Tag color={exclude ? 'red' : undefined}>
        {exclude ? '¬ ' : ''}
        {setName(setId)}
      </Tag>
    ) : (
      <Typography.Text type="secondary">{t('tdePolicy:fields.any')}</Typography.Text>
    );

  const orderButtons = <T,>(list: T[], index: number, set: (l: T[]) => void, prefix: string) => (
    <>
      <Button
        size="small"
        type="link"
        icon={<ArrowUpOutlined />}
        disabled={disabled || index === 0}
        onClick={() => set(move(list, index, -1))}
        aria-label={t('tdePolicy:actions.up')}
        data-testid={`${prefix}-up-${index}`}
      />
      <Button
        size="small"
        type="link"
        icon={<ArrowDownOutlined />}
        disabled={disabled || index === list.length - 1}
        onClick={() => set(move(list, index, 1))}
        aria-label={t('tdePolicy:actions.down')}
        data-testid={`${prefix}-down-${index}`}
      />
    </>
  );

  const ruleColumns: ColumnsType<Rule & { index: number }> = [
    { title: t('tdePolicy:fields.order'), dataIndex: 'index', render: (i: number) => i + 1, width: 70 },
    { title: t('tdePolicy:fields.userSet'), render: (_, r) => setTag(r.user_set_id, r.exclude_user_set) },
    {
      title: t('tdePolicy:fields.processSet'),
      render: (_, r) => setTag(r.process_set_id, r.exclude_process_set),
    },
    {
      title: t('tdePolicy:fields.resourceSet'),
      render: (_, r) => setTag(r.resource_set_id, r.exclude_resource_set),
    },
    { title: t('tdePolicy:fields.actions'), dataIndex: 'actions', render: (a: string[]) => a.join(', ') },
    {
      title: t('tdePolicy:fields.effects'),
      dataIndex: 'effects',
      render: (e: PolicyEffect[]) => e.map((effect) => t(`tdePolicy:effects.${effect}`)).join(', '),
    },
  ];
  const ruleEditColumns: ColumnsType<Rule & { index: number }> = [
    ...ruleColumns,
    {
      title: t('common:actions.operations'),
      render: (_, r) => (
        <Space size={0} wrap>
          {orderButtons(rules, r.index, setRules, 'rule')}
          <Button
            size="small"
            type="link"
            disabled={disabled}
            data-testid={`rule-edit-${r.index}`}
            onClick={() => {
              setEditing({ index: r.index, rule: rules[r.index]! });
              ruleForm.setFieldsValue(rules[r.index]!);
            }}
          >
            {t('tdePolicy:actions.edit')}
          </Button>
          <Button
            size="small"
            type="link"
            danger
            disabled={disabled}
            data-testid={`rule-remove-${r.index}`}
            onClick={() => setRules(rules.filter((_, i) => i !== r.index))}
          >
            {t('tdePolicy:actions.remove')}
          </Button>
        </Space>
      ),
    },
  ];

  const keyColumns: ColumnsType<KeyRule & { index: number }> = [
    { title: t('tdePolicy:fields.order'), dataIndex: 'index', render: (i: number) => i + 1, width: 70 },
    {
      title: t('tdePolicy:fields.resourceSet'),
      render: (_, r) =>
        r.resource_set_id ? <Tag>{setName(r.resource_set_id)}</Tag> : t('tdePolicy:fields.allFiles'),
    },
    { title: t('tdePolicy:fields.key'), render: (_, r) => keyName(r.key_id) },
  ];
  const keyEditColumns: ColumnsType<KeyRule & { index: number }> = [
    ...keyColumns,
    {
      title: t('common:actions.operations'),
      render: (_, r) => (
        <Space size={0} wrap>
          {orderButtons(keyRules, r.index, setKeyRules, 'key-rule')}
          <Button
            size="small"
            type="link"
            danger
            disabled={disabled}
            data-testid={`key-rule-remove-${r.index}`}
            onClick={() => setKeyRules(keyRules.filter((_, i) => i !== r.index))}
          >
            {t('tdePolicy:actions.remove')}
          </Button>
        </Space>
      ),
    },
  ];

  /** A row of a rule table: marked when the server's refusal names it. */
  const rowProps = (prefix: string, errorStep: PolicyStep) => (r: { index: number }) =>
    ({
      'data-testid': `${prefix}-row-${r.index}`,
      style:
        stepError?.step === errorStep && stepError.row === r.index
          ? { background: token.colorErrorBg }
          : undefined,
    }) as React.HTMLAttributes<HTMLElement>;

  const ruleTable = (readOnly: boolean) => (
    <Table
      size="small"
      rowKey="index"
      pagination={false}
      scroll={{ x: 'max-content' }}
      data-testid={readOnly ? 'review-rule-table' : 'rule-table'}
      locale={{ emptyText: t('tdePolicy:noRules') }}
      columns={readOnly ? ruleColumns : ruleEditColumns}
      dataSource={rules.map((r, index) => ({ ...r, index }))}
      onRow={rowProps(readOnly ? 'review-rule' : 'rule', 'rules')}
    />
  );
  const keyTable = (readOnly: boolean) => (
    <Table
      size="small"
      rowKey="index"
      pagination={false}
      scroll={{ x: 'max-content' }}
      data-testid={readOnly ? 'review-key-rule-table' : 'key-rule-table'}
      locale={{ emptyText: t('tdePolicy:noRules') }}
      columns={readOnly ? keyColumns : keyEditColumns}
      dataSource={keyRules.map((r, index) => ({ ...r, index }))}
      onRow={rowProps(readOnly ? 'review-key-rule' : 'key-rule', 'keys')}
    />
  );

  const generalStep = (
    <Card title={t('tdePolicy:sections.general')} size="small">
      <Flex gap={16} wrap>
        <Form.Item
          name="name"
          label={t('tdePolicy:fields.name')}
          rules={[{ required: true, whitespace: true, max: 64 }]}
          style={{ minWidth: 240, flex: 1 }}
        >
          <Input data-testid="policy-name" maxLength={64} />
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
          rules={[{ max: 256 }]}
          style={{ minWidth: 240, flex: 2 }}
        >
          <Input data-testid="policy-description" maxLength={256} />
        </Form.Item>
      </Flex>
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
    </Card>
  );

  const rdmStep = (
    <Card title={t('tdePolicy:sections.rdm')} size="small">
      <Flex gap={16} wrap>
        <Form.Item
          name="rdm_mode"
          label={t('tdePolicy:fields.rdmMode')}
          rules={[{ required: true }]}
          style={{ minWidth: 160 }}
        >
          <Select
            data-testid="policy-rdm-mode"
            options={rdmModes.map((m) => ({ value: m, label: t(`tdePolicy:modes.${m}`) }))}
          />
        </Form.Item>
        <Form.Item
          name="trusted_process_set_ids"
          label={t('tdePolicy:fields.trustedProcesses')}
          rules={[{ type: 'array', max: 20 }]}
          style={{ minWidth: 260, flex: 1 }}
        >
          <Select mode="multiple" data-testid="policy-trusted" options={setOptions('process')} />
        </Form.Item>
        <Form.Item
          name="threshold_files"
          label={t('tdePolicy:fields.thresholdFiles')}
          rules={[{ required: true }]}
        >
          <InputNumber
            min={RDM_THRESHOLD.files.min}
            max={RDM_THRESHOLD.files.max}
            precision={0}
            data-testid="policy-threshold-files"
          />
        </Form.Item>
        <Form.Item
          name="threshold_window_s"
          label={t('tdePolicy:fields.thresholdWindow')}
          rules={[{ required: true }]}
        >
          <InputNumber
            min={RDM_THRESHOLD.window_s.min}
            max={RDM_THRESHOLD.window_s.max}
            precision={0}
            data-testid="policy-threshold-window"
          />
        </Form.Item>
      </Flex>
    </Card>
  );

  const rulesStep = (
    <Card
      title={t('tdePolicy:fields.securityRules')}
      size="small"
      extra={
        !disabled && (
          <Button
            icon={<PlusOutlined />}
            data-testid="rule-add"
            onClick={() => {
              setEditing({ index: null, rule: emptyRule });
              ruleForm.setFieldsValue(emptyRule);
            }}
          >
            {t('tdePolicy:actions.addRule')}
          </Button>
        )
      }
    >
      <Typography.Paragraph type="secondary">{t('tdePolicy:wizard.rulesHint')}</Typography.Paragraph>
      {ruleTable(false)}
    </Card>
  );

  const keysStep = (
    <Card
      title={t('tdePolicy:fields.keyRules')}
      size="small"
      extra={
        !disabled && (
          <Button
            icon={<PlusOutlined />}
            data-testid="key-rule-add"
            onClick={() => {
              const rule = { resource_set_id: null, key_id: CLEAR_KEY };
              setEditingKey({ index: null, rule });
              keyForm.setFieldsValue(rule);
            }}
          >
            {t('tdePolicy:actions.addKeyRule')}
          </Button>
        )
      }
    >
      <Typography.Paragraph type="secondary">{t('tdePolicy:wizard.keysHint')}</Typography.Paragraph>
      {keyTable(false)}
    </Card>
  );

  const reviewStep = () => {
    const g = form.getFieldsValue(true) as General;
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
            ? (g.trusted_process_set_ids ?? []).map((s) => <Tag key={s}>{setName(s)}</Tag>)
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
          {ruleTable(true)}
        </Card>
        {type === 'standard' && (
          <Card title={t('tdePolicy:fields.keyRules')} size="small">
            {keyTable(true)}
          </Card>
        )}
      </Flex>
    );
  };

  const stepBody: Record<PolicyStep, () => ReactNode> = {
    general: () => generalStep,
    rdm: () => rdmStep,
    rules: () => rulesStep,
    keys: () => keysStep,
    review: reviewStep,
  };
  const last = current === steps.length - 1;
  // A new policy walks forward step by step; an existing one can jump to any step.
  const open = (index: number) => Boolean(id) || index <= reached;

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
      <Flex wrap gap={8} justify="space-between" align="center">
        <Space wrap>
          <Button icon={<ArrowLeftOutlined />} onClick={back} aria-label={t('tdePolicy:policies.back')} />
          <Typography.Title level={4} style={{ margin: 0 }} data-testid="policy-title">
            {row
              ? t('tdePolicy:policies.detailTitle', { name: row.name })
              : id
                ? ''
                : t('tdePolicy:policies.createTitle')}
          </Typography.Title>
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
        </Space>
        {row && canWrite && (
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
        )}
      </Flex>
      <Steps
        size="small"
        orientation={narrow ? 'vertical' : 'horizontal'}
        current={current}
        data-testid="policy-steps"
        onChange={(index) => void goTo(index)}
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
        <Button data-testid="policy-prev" disabled={current === 0} onClick={() => setCurrent(current - 1)}>
          {t('tdePolicy:wizard.prev')}
        </Button>
        {!last && (
          <Button type="primary" data-testid="policy-next" onClick={() => void goTo(current + 1)}>
            {t('tdePolicy:wizard.next')}
          </Button>
        )}
        {last && canWrite && (
          <Button
            type="primary"
            data-testid="policy-save"
            {...submit.buttonProps}
            onClick={() => void save(form.getFieldsValue(true) as General)}
          >
            {t('tdePolicy:actions.save')}
          </Button>
        )}
      </Flex>

      <Modal
        open={editing !== null}
        title={t('tdePolicy:ruleTitle')}
        okText={t('tdePolicy:actions.ok')}
        cancelText={t('tdePolicy:actions.cancel')}
        okButtonProps={{ 'data-testid': 'rule-ok' }}
        onCancel={() => setEditing(null)}
        onOk={() => {
          void ruleForm.validateFields().then((v) => {
            const rule: Rule = {
              ...emptyRule,
              ...v,
              user_set_id: v.user_set_id ?? null,
              process_set_id: v.process_set_id ?? null,
              resource_set_id: v.resource_set_id ?? null,
            };
            setRules(
              editing?.index == null
                ? [...rules, rule]
                : rules.map((r, i) => (i === editing.index ? rule : r)),
            );
            setEditing(null);
          });
        }}
        destroyOnHidden
      >
        <Form<Rule> form={ruleForm} layout="vertical" preserve={false} initialValues={editing?.rule}>
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
                  options={setOptions(kind)}
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
                .filter((e) => type === 'standard' || e !== 'applykey')
                .map((e) => ({ value: e, label: t(`tdePolicy:effects.${e}`) }))}
            />
          </Form.Item>
        </Form>
      </Modal>

      <Modal
        open={editingKey !== null}
        title={t('tdePolicy:keyRuleTitle')}
        okText={t('tdePolicy:actions.ok')}
        cancelText={t('tdePolicy:actions.cancel')}
        okButtonProps={{ 'data-testid': 'key-rule-ok' }}
        onCancel={() => setEditingKey(null)}
        onOk={() => {
          void keyForm.validateFields().then((v) => {
            const rule: KeyRule = { resource_set_id: v.resource_set_id ?? null, key_id: v.key_id };
            setKeyRules(
              editingKey?.index == null
                ? [...keyRules, rule]
                : keyRules.map((r, i) => (i === editingKey.index ? rule : r)),
            );
            setEditingKey(null);
          });
        }}
        destroyOnHidden
      >
        <Form<KeyRule> form={keyForm} layout="vertical" preserve={false} initialValues={editingKey?.rule}>
          <Form.Item name="resource_set_id" label={t('tdePolicy:fields.resourceSet')}>
            <Select
              allowClear
              placeholder={t('tdePolicy:fields.allFiles')}
              data-testid="key-rule-resource-set"
              options={setOptions('resource')}
            />
          </Form.Item>
          <Form.Item name="key_id" label={t('tdePolicy:fields.key')} rules={[{ required: true }]}>
            <Select
              data-testid="key-rule-key"
              options={[
                { value: CLEAR_KEY, label: t('tdePolicy:fields.clearKey') },
                ...keys.map((k) => ({ value: k.id, label: `${k.name} (${k.encryption_mode})` })),
              ]}
            />
          </Form.Item>
        </Form>
      </Modal>
    </Flex>
  );
}
