import { useState, type ReactNode } from 'react';
import {
  Alert,
  Button,
  Checkbox,
  DatePicker,
  Flex,
  Form,
  Input,
  InputNumber,
  Modal,
  Select,
  Typography,
} from 'antd';
import type { ButtonProps, FormInstance } from 'antd';
import dayjs from 'dayjs';
import {
  api,
  credentialTypes,
  GENERATED_PASSWORD_MAX,
  GENERATED_PASSWORD_MIN,
  type CredentialRow,
  type CredentialType,
} from '@ksp/contracts';
import { generatePassword } from '../../api/credential';
import { limitsAt } from '../../components/schema-limits';
import { useSubmit } from '../../components/use-submit';
import { requiredRule } from '../../components/schema-rules';
import { useT } from '../../i18n/i18n';

const classNames = ['lower', 'upper', 'digits', 'symbols'] as const;
type PasswordClass = (typeof classNames)[number];
const NAME = limitsAt(api.credential.create.body!, ['name']);
const DESCRIPTION = limitsAt(api.credential.create.body!, ['description']);
const ROTATION_DAYS = limitsAt(api.credential.create.body!, ['rotation_days']);

/** Password policy and a button that asks the server for a random password (CSPRNG there). */
function GenerateRow({ onGenerated }: { onGenerated: (password: string) => void }) {
  const t = useT();
  const [length, setLength] = useState(20);
  const [classes, setClasses] = useState<PasswordClass[]>([...classNames]);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const { password } = await generatePassword({
        length,
        lower: classes.includes('lower'),
        upper: classes.includes('upper'),
        digits: classes.includes('digits'),
        symbols: classes.includes('symbols'),
      });
      onGenerated(password);
    } catch {
      // Shown by the API client.
    } finally {
      setBusy(false);
    }
  };
  return (
    <Flex gap={8} wrap align="center" data-testid="cred-generate-row">
      <span>{t('credential:length')}</span>
      <InputNumber
        min={GENERATED_PASSWORD_MIN}
        max={GENERATED_PASSWORD_MAX}
        value={length}
        onChange={(v) => setLength(v ?? 20)}
        data-testid="cred-generate-length"
      />
      <Checkbox.Group
        value={classes}
        onChange={(v) => setClasses(v)}
        options={classNames.map((c) => ({ value: c, label: t(`credential:classes.${c}`) }))}
      />
      <Button
        onClick={() => void run()}
        loading={busy}
        disabled={classes.length === 0}
        data-testid="cred-generate"
      >
        {t('credential:generate')}
      </Button>
    </Flex>
  );
}

/** The value input of a type: masked for passwords and keys, a text area for PEM and JSON. */
export function ValueField({
  type,
  onGenerated,
}: {
  type: CredentialType;
  onGenerated?: (v: string) => void;
}) {
  const t = useT();
  const multiline = type === 'ssh-private-key' || type === 'certificate-and-key' || type === 'key-value';
  return (
    <>
      <Form.Item
        name="value"
        label={t('credential:fields.value')}
        extra={t(`credential:valueHints.${type}`)}
        rules={[requiredRule(t('credential:fields.value'))]}
      >
        {multiline ? (
          <Input.TextArea
            autoSize={{ minRows: 4, maxRows: 12 }}
            spellCheck={false}
            style={{ fontFamily: 'monospace' }}
            data-testid="cred-value"
          />
        ) : (
          <Input.Password autoComplete="new-password" data-testid="cred-value" />
        )}
      </Form.Item>
      {type === 'password' && onGenerated && (
        <Form.Item>
          <GenerateRow onGenerated={onGenerated} />
        </Form.Item>
      )}
    </>
  );
}

export interface MetadataValues {
  name: string;
  description: string;
  tags: string[];
  expires_at: dayjs.Dayjs | null;
  rotation_days: number | null;
}

function MetadataFields() {
  const t = useT();
  return (
    <>
      <Form.Item
        name="name"
        label={t('credential:fields.name')}
        rules={[
          {
            required: true,
            whitespace: true,
            max: NAME.max,
            message: t('common:validation.required', { label: t('credential:fields.name') }),
          },
        ]}
      >
        <Input data-testid="cred-name" />
      </Form.Item>
      <Form.Item
        name="description"
        label={t('credential:fields.description')}
        rules={[{ max: DESCRIPTION.max }]}
      >
        <Input.TextArea autoSize={{ minRows: 1, maxRows: 4 }} data-testid="cred-description" />
      </Form.Item>
      <Form.Item name="tags" label={t('credential:fields.tags')} extra={t('credential:tagsHint')}>
        <Select mode="tags" open={false} suffixIcon={null} data-testid="cred-tags" />
      </Form.Item>
      <Flex gap={16} wrap>
        <Form.Item name="expires_at" label={t('credential:fields.expiresAt')}>
          <DatePicker showTime={{ format: 'HH:mm' }} format="YYYY-MM-DD HH:mm" data-testid="cred-expires" />
        </Form.Item>
        <Form.Item name="rotation_days" label={t('credential:fields.rotationDays')}>
          <InputNumber min={ROTATION_DAYS.min} max={ROTATION_DAYS.max} data-testid="cred-rotation" />
        </Form.Item>
      </Flex>
    </>
  );
}

const metadataBody = (v: MetadataValues) => ({
  name: v.name.trim(),
  description: (v.description ?? '').trim(),
  tags: v.tags ?? [],
  expires_at: v.expires_at ? v.expires_at.second(0).millisecond(0).toISOString() : null,
  rotation_days: v.rotation_days ?? null,
});

/** A modal form whose refusal (the server names the field) shows inside it; `close` clears it. */
function useRefusalSubmit(onClose: () => void) {
  const submit = useSubmit();
  const [refusal, setRefusal] = useState<string | null>(null);
  const close = () => {
    setRefusal(null);
    onClose();
  };
  const run = (work: () => Promise<unknown>) =>
    submit.run(async () => {
      setRefusal(null);
      try {
        await work();
      } catch (error) {
        setRefusal(error instanceof Error ? error.message : String(error));
        throw error;
      }
    }, close);
  return { ...submit, refusal, setRefusal, run, close };
}

/** A dialog of the credential forms: Save runs `onValid` once the form passes its rules. */
function CredentialModal<V>({
  open,
  title,
  form,
  onValid,
  onCancel,
  buttonProps,
  okTestId,
  children,
}: {
  open: boolean;
  title: string;
  form: FormInstance<V>;
  onValid: (values: V) => Promise<unknown>;
  onCancel: () => void;
  buttonProps: ButtonProps;
  okTestId: string;
  children: ReactNode;
}) {
  const t = useT();
  const onOk = async () => {
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    await onValid(values);
  };
  return (
    <Modal
      open={open}
      title={title}
      okText={t('common:actions.save')}
      cancelText={t('common:actions.cancel')}
      onOk={() => void onOk()}
      onCancel={onCancel}
      okButtonProps={{ ...buttonProps, 'data-testid': okTestId }}
      destroyOnHidden
      width={640}
    >
      {children}
    </Modal>
  );
}

export function CreateModal({
  open,
  onClose,
  onCreate,
}: {
  open: boolean;
  onClose: () => void;
  onCreate: (
    body: ReturnType<typeof metadataBody> & { type: CredentialType; value: string },
  ) => Promise<unknown>;
}) {
  const t = useT();
  const [form] = Form.useForm<MetadataValues & { type: CredentialType; value: string }>();
  const type = Form.useWatch('type', form) ?? 'password';
  const submit = useRefusalSubmit(onClose);
  return (
    <CredentialModal
      open={open}
      title={t('credential:createTitle')}
      form={form}
      onValid={(values) =>
        submit.run(() => onCreate({ ...metadataBody(values), type: values.type, value: values.value }))
      }
      onCancel={submit.close}
      buttonProps={submit.buttonProps}
      okTestId="cred-create-ok"
    >
      <Form
        form={form}
        layout="vertical"
        clearOnDestroy
        initialValues={{ type: 'password', description: '', tags: [], expires_at: null, rotation_days: null }}
        onValuesChange={() => submit.setRefusal(null)}
      >
        <MetadataFields />
        <Form.Item name="type" label={t('credential:fields.type')}>
          <Select
            options={credentialTypes.map((v) => ({ value: v, label: t(`credential:types.${v}`) }))}
            data-testid="cred-type"
          />
        </Form.Item>
        <ValueField type={type} onGenerated={(value) => form.setFieldsValue({ value })} />
        {submit.refusal && <Alert type="error" showIcon title={submit.refusal} data-testid="cred-refusal" />}
      </Form>
    </CredentialModal>
  );
}

export function EditModal({
  row,
  onClose,
  onSave,
}: {
  row: CredentialRow | null;
  onClose: () => void;
  onSave: (body: ReturnType<typeof metadataBody>) => Promise<unknown>;
}) {
  const t = useT();
  const [form] = Form.useForm<MetadataValues>();
  const submit = useSubmit();
  return (
    <CredentialModal
      open={row !== null}
      title={t('credential:editTitle', { name: row?.name ?? '' })}
      form={form}
      onValid={(values) => submit.run(() => onSave(metadataBody(values)), onClose)}
      onCancel={onClose}
      buttonProps={submit.buttonProps}
      okTestId="cred-edit-ok"
    >
      {row && (
        <Form
          form={form}
          layout="vertical"
          clearOnDestroy
          initialValues={{
            name: row.name,
            description: row.description,
            tags: row.tags,
            expires_at: row.expires_at ? dayjs(row.expires_at) : null,
            rotation_days: row.rotation_days,
          }}
        >
          <MetadataFields />
        </Form>
      )}
    </CredentialModal>
  );
}

export function NewVersionModal({
  row,
  onClose,
  onSave,
}: {
  row: CredentialRow | null;
  onClose: () => void;
  onSave: (value: string) => Promise<unknown>;
}) {
  const t = useT();
  const [form] = Form.useForm<{ value: string }>();
  const submit = useRefusalSubmit(onClose);
  return (
    <CredentialModal
      open={row !== null}
      title={t('credential:newVersionTitle', { name: row?.name ?? '' })}
      form={form}
      onValid={(values) => submit.run(() => onSave(values.value))}
      onCancel={submit.close}
      buttonProps={submit.buttonProps}
      okTestId="cred-version-ok"
    >
      {row && (
        <Form form={form} layout="vertical" clearOnDestroy onValuesChange={() => submit.setRefusal(null)}>
          <Typography.Paragraph type="secondary">{t('credential:newVersionHint')}</Typography.Paragraph>
          <ValueField type={row.type} onGenerated={(value) => form.setFieldsValue({ value })} />
          {submit.refusal && (
            <Alert type="error" showIcon title={submit.refusal} data-testid="cred-refusal" />
          )}
        </Form>
      )}
    </CredentialModal>
  );
}
