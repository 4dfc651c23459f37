import type { ReactNode } from 'react';
import { Form, Input, InputNumber, Modal, Select, Switch } from 'antd';
import type { FormInstance, FormItemProps, Rule } from 'antd/es/form';
import type { z } from 'zod';
import { useT } from '../i18n/i18n';
import { fieldSchema, rulesFromSchema } from './schema-rules';
import { useSubmit } from './use-submit';

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

export interface FormModalProps<V> extends Omit<ModalFormProps<V>, 'children'> {
  fields: FormField<V>[];
  /** The contract body schema: required, length and format rules come from it. */
  schema?: z.ZodType;
  /** The rules of one field from the schema, when a feature words them its own way. */
  schemaRules?: (schema: z.ZodType, name: string, label: string) => Rule[];
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

export interface ModalFormProps<V> {
  open: boolean;
  title: ReactNode;
  /** Submits the values; a rejection keeps the modal open, success closes it. */
  onSubmit: (values: V) => Promise<unknown>;
  onClose: () => void;
  okText?: string;
  cancelText?: string;
  /** Shows the form disabled, without the OK button (nothing to submit). */
  readOnly?: boolean;
  form?: FormInstance<V>;
  initialValues?: Partial<V>;
  onValuesChange?: (changed: Partial<V>, all: V) => void;
  width?: number;
  /** data-testid of the OK button (default `form-modal-ok`) and of the form. */
  okTestId?: string;
  formTestId?: string;
  children: ReactNode;
}

/**
 * A modal around a form: every adding and editing dialog of the console. The form is
 * created afresh each time the modal opens; OK submits it through `useSubmit`.
 */
export function ModalForm<V extends object>({
  open,
  title,
  onSubmit,
  onClose,
  okText,
  cancelText,
  readOnly = false,
  form,
  initialValues,
  onValuesChange,
  width = 560,
  okTestId = 'form-modal-ok',
  formTestId,
  children,
}: ModalFormProps<V>) {
  const t = useT();
  const { submitting, locked, run } = useSubmit();
  return (
    <Modal
      open={open}
      title={title}
      okText={okText ?? t('common:actions.save')}
      cancelText={cancelText ?? t('common:actions.cancel')}
      confirmLoading={submitting}
      okButtonProps={{
        htmlType: 'submit',
        disabled: locked && !submitting,
        'data-testid': okTestId,
        style: readOnly ? { display: 'none' } : undefined,
      }}
      onCancel={onClose}
      destroyOnHidden
      width={width}
      modalRender={(dom) => (
        <Form<V>
          form={form}
          layout="vertical"
          initialValues={initialValues}
          clearOnDestroy
          disabled={readOnly}
          onValuesChange={onValuesChange}
          onFinish={(values) => {
            if (!readOnly) void run(() => onSubmit(values), onClose);
          }}
          data-testid={formTestId}
        >
          {dom}
        </Form>
      )}
    >
      {children}
    </Modal>
  );
}

/**
 * A modal form declared by its fields (and the contract schema for the rules): the
 * simple adding and editing dialogs.
 */
export function FormModal<V extends object>({ fields, schema, schemaRules, ...props }: FormModalProps<V>) {
  const derived = (name: string, label: string): Rule[] =>
    !schema
      ? []
      : schemaRules
        ? schemaRules(schema, name, label)
        : rulesFromSchema(fieldSchema(schema, name), label);
  return (
    <ModalForm<V> {...props}>
      {fields
        .filter((field) => !field.hidden)
        .map((field) => (
          <Form.Item
            key={field.name}
            // antd's NamePath type does not reduce for a generic V; tsc needs the cast (lint cannot see it).
            // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
            name={field.name as string}
            label={field.label}
            extra={field.extra}
            valuePropName={field.kind === 'switch' && !field.getValueProps ? 'checked' : 'value'}
            getValueProps={field.getValueProps}
            normalize={field.normalize}
            rules={[...derived(field.name, field.label), ...(field.rules ?? [])]}
          >
            {control(field)}
          </Form.Item>
        ))}
    </ModalForm>
  );
}
