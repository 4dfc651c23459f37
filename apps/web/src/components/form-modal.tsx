import { useState, type ReactNode } from 'react';
import { Form, Input, InputNumber, Modal, Select, Switch } from 'antd';
import type { FormItemProps, Rule } from 'antd/es/form';
import type { z } from 'zod';
import { useT } from '../i18n/i18n';
import { fieldSchema, rulesFromSchema } from './schema-rules';

export interface FormField<V> {
  name: keyof V & string;
  label: string;
  /** The control; `custom` uses `render`. */
  kind?: 'text' | 'textarea' | 'number' | 'switch' | 'select' | 'custom';
  options?: { label: ReactNode; value: string | number }[];
  placeholder?: string;
  disabled?: boolean;
  hidden?: boolean;
  extra?: ReactNode;
  /** Extra rules besides those derived from the schema. */
  rules?: Rule[];
  render?: () => ReactNode;
  getValueProps?: FormItemProps['getValueProps'];
  normalize?: FormItemProps['normalize'];
  testId?: string;
}

export interface FormModalProps<V> {
  open: boolean;
  title: ReactNode;
  fields: FormField<V>[];
  /** The contract body schema: required, length and format rules come from it. */
  schema?: z.ZodType;
  initialValues?: Partial<V>;
  onSubmit: (values: V) => Promise<unknown>;
  onClose: () => void;
  okText?: string;
}

function control<V>(field: FormField<V>): ReactNode {
  const common = { disabled: field.disabled, placeholder: field.placeholder, 'data-testid': field.testId };
  switch (field.kind) {
    case 'textarea':
      return <Input.TextArea {...common} autoSize={{ minRows: 2, maxRows: 8 }} />;
    case 'number':
      return <InputNumber {...common} style={{ width: '100%' }} />;
    case 'switch':
      return <Switch disabled={field.disabled} data-testid={field.testId} />;
    case 'select':
      return <Select {...common} options={field.options} />;
    case 'custom':
      return field.render?.();
    default:
      return <Input {...common} />;
  }
}

/**
 * One modal form for adding and editing: a page declares its fields (and the contract
 * schema for the rules); the modal validates, submits and closes on success. The form
 * is created afresh each time the modal opens, from `initialValues`.
 */
export function FormModal<V extends object>({
  open,
  title,
  fields,
  schema,
  initialValues,
  onSubmit,
  onClose,
  okText,
}: FormModalProps<V>) {
  const t = useT();
  const [submitting, setSubmitting] = useState(false);

  const submit = async (values: V) => {
    setSubmitting(true);
    try {
      await onSubmit(values);
      onClose();
    } catch {
      // The client already showed the server's message; keep the form open to correct it.
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <Modal
      open={open}
      title={title}
      okText={okText ?? t('common:actions.save')}
      cancelText={t('common:actions.cancel')}
      confirmLoading={submitting}
      okButtonProps={{ htmlType: 'submit', 'data-testid': 'form-modal-ok' }}
      onCancel={onClose}
      destroyOnHidden
      width={560}
      modalRender={(dom) => (
        <Form<V>
          layout="vertical"
          initialValues={initialValues}
          clearOnDestroy
          onFinish={(values) => void submit(values)}
        >
          {dom}
        </Form>
      )}
    >
      {fields
        .filter((field) => !field.hidden)
        .map((field) => (
          <Form.Item
            key={field.name}
            name={field.name as string}
            label={field.label}
            extra={field.extra}
            valuePropName={field.kind === 'switch' && !field.getValueProps ? 'checked' : 'value'}
            getValueProps={field.getValueProps}
            normalize={field.normalize}
            rules={[...rulesFromSchema(fieldSchema(schema, field.name), field.label), ...(field.rules ?? [])]}
          >
            {control(field)}
          </Form.Item>
        ))}
    </Modal>
  );
}
